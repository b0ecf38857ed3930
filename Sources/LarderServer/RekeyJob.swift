import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// `cache.rekey` at work: a batch of entries re-sealed per turn of the event
/// loop, each committed before the next, so that a rekey stopped anywhere
/// resumes from its last committed batch. Other requests are served in
/// between; those for the cache being rekeyed are refused (-31060,
/// `rekeyRunning`, retryable) until it ends.
final class RekeyJob {
    private unowned let server: Server
    private let reply: Reply
    private let rekey: Rekey
    private let options: CacheRekey.Params
    private let total: Int

    init(server: Server, reply: Reply, rekey: Rekey, options: CacheRekey.Params) {
        self.server = server
        self.reply = reply
        self.rekey = rekey
        self.options = options
        total = rekey.cache.diskTotals.count
    }

    func start() {
        progress(.begin(title: "Rekeying cache \(rekey.cache.name)", cancellable: false, percentage: 0,
                        message: "\(Self.entries(total)) to re-seal"))
        server.connection.loop.schedule { [self] in step() }
    }

    private static func entries(_ n: Int) -> String { n == 1 ? "1 entry" : "\(n) entries" }

    private func progress(_ value: WorkDoneProgress.Value) {
        guard let token = options.token else { return }
        server.gate.notify(WorkDoneProgress.self, .init(token: token, value: value))
    }

    private func step() {
        let finished: Bool
        server.store.beginRequest()
        do {
            finished = try server.mappingStoreErrors { () throws(StoreError) in try rekey.step(limit: options.batchSize) }
        } catch {
            // A batch is re-sealed whole or not at all.
            server.store.requestFailed()
            return fail(error)
        }
        if case .failure(let failure) = server.gate.commit() { return fail(failure.responseError) }
        if finished {
            rekey.adopt()
            progress(.end(message: "\(Self.entries(rekey.resealed)) re-sealed"))
            server.gate.answer(reply, .success(CacheRekey.Result(cache: rekey.cache.name, resealed: rekey.resealed, resumed: rekey.resumed).json),
                               after: .commit)
            return
        }
        let percentage = total == 0 ? 100 : min(99, rekey.resealed * 100 / total)
        progress(.report(percentage: percentage, message: "\(rekey.resealed) of \(Self.entries(total)) re-sealed"))
        if server.lifecycle == .shutDown { return fail(.requestCancelled(data: nil)) }
        server.connection.loop.schedule { [self] in step() }
    }

    /// Ends the rekey where it stands: what was committed stays, and the
    /// cache waits for a rekey to the same key to finish.
    private func fail(_ error: ResponseError) {
        rekey.abandon()
        progress(.end(message: "stopped: the next cache.rekey with the same key resumes it"))
        reply.fail(error)
    }
}
