import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// `migrate.run` at work: every stored object that is behind is migrated, a
/// batch per transaction, one batch per turn of the event loop so that other
/// requests (and `$/cancelRequest`) are served in between.
final class MigrationJob {
    typealias Options = MigrateRun.Params

    private unowned let server: Server
    private let reply: Reply
    private let options: Options
    private var caches: [Cache]
    private var cursor: EntryKey?
    private var pending: ArraySlice<EntryKey> = []
    private var total = 0
    /// Objects looked at, of any type; `examined` counts those of the requested type.
    private var visited = 0
    private var counts = MigrateRun.Result()
    private var cancelled = false
    /// The commits since the batch began: the flushes made while the batch
    /// waits for the client commit parts of it.
    private var batchCommits: CommitWatch?

    init(server: Server, reply: Reply, caches: [Cache], options: Options) {
        self.server = server
        self.reply = reply
        self.caches = caches
        self.options = options
    }

    func start() throws(StoreError) {
        for c in caches { total += try c.objectCount() }
        reply.onCancel = { [unowned self] in cancelled = true }
        progress(.begin(title: "Migrating objects", cancellable: true, percentage: 0, message: "stored objects: \(total)"))
        server.connection.loop.schedule { [self] in nextBatch() }
    }

    private func progress(_ value: WorkDoneProgress.Value) {
        guard let token = options.token else { return }
        server.gate.notify(WorkDoneProgress.self, .init(token: token, value: value))
    }

    private var batchRemaining = 0

    /// Migrates up to a batch of objects, then commits and yields.
    private func nextBatch() {
        batchRemaining = options.batchSize
        batchCommits = server.gate.watch()
        // The batch reads its objects in the transaction that writes them
        // back: another process or sidecar migrating the same store at the
        // same time has either committed an object before this reads it (and
        // it reads as current) or waits for this batch — never both migrate it.
        if !options.dryRun {
            do {
                try server.store.beginWrite()
            } catch {
                progress(.end(message: "failed: a batch could not begin"))
                reply.fail(error.responseError)
                return
            }
        }
        step()
    }

    private func step() {
        while batchRemaining > 0 {
            if pending.isEmpty && !refill() { return finish() }
            let key = pending.popFirst()!
            guard let cache = caches.first else { return finish() }
            batchRemaining -= 1
            visited += 1
            if let type = options.type, (try? cache.storedContent(key))??.0.type != type { continue }
            var inLoop = true, answeredAtOnce = false
            ObjectFetch.read(key, in: cache, server: server, writeBack: !options.dryRun) { [self] outcome in
                record(outcome, key: key, cache: cache)
                // An answer that needed the client arrives later: carry on from there.
                if inLoop { answeredAtOnce = true } else { step() }
            }
            inLoop = false
            if !answeredAtOnce { return }
        }
        endBatch()
    }

    /// Counts one entry's outcome. An array of objects counts its elements:
    /// those migrated, those current, those a callback dropped; when one
    /// fails, nothing of it was written and every element counts as failed.
    private func record(_ outcome: Swift.Result<ObjectRead, ResponseError>, key: EntryKey, cache: Cache) {
        switch outcome {
        case .success(.notFound): return
        case .success(.current), .success(.untyped): counts.upToDate += 1
        case .success(.migrated): counts.migrated += 1
        case .success(.dropped): counts.dropped += 1
        case .success(.array(let read)):
            counts.migrated += read.migrated
            counts.upToDate += read.array.values.count - read.migrated
            counts.dropped += read.dropped.count
            counts.examined += read.array.values.count + read.dropped.count
            return
        case .success(.needsCallback): counts.failed += 1
        case .failure(let error):
            // A failed read wrote nothing: what is stored tells how many objects failed with it.
            var objects = 1
            if case .array(let array)? = (try? cache.storedContent(key))?.0 { objects = array.values.count }
            counts.failed += objects
            var f: JSONObject = ["key": .string(key.key)]
            if key.group != "" { f["group"] = .string(key.group) }
            if cache.name != "default" { f["cache"] = .string(cache.name) }
            if let type = error.data?["type"] { f["type"] = type }
            if let from = error.data?["fromVersion"] { f["fromVersion"] = from }
            if let index = error.data?["index"] { f["index"] = index }
            f["error"] = error.json
            if counts.failures.count < 1000 { counts.failures.append(.object(f)) }
            if options.dropFailures && !options.dryRun, (try? cache.remove(key)) == true { counts.dropped += objects }
            counts.examined += objects
            return
        }
        counts.examined += 1
    }

    /// Loads the next keys to look at; false when every cache is done.
    private func refill() -> Bool {
        while let cache = caches.first {
            do {
                pending = ArraySlice(try cache.objectKeys(after: cursor, limit: options.batchSize))
            } catch {
                reply.fail(error.responseError)
                return false
            }
            if let last = pending.last {
                cursor = last
                return true
            }
            caches.removeFirst()
            cursor = nil
        }
        return false
    }

    private func endBatch() {
        if commitBatch() { return }
        let percentage = total == 0 ? 100 : min(100, visited * 100 / total)
        progress(.report(percentage: percentage, message: "\(visited) of \(total) stored objects looked at, \(counts.migrated) migrated"))
        // Cancelled, or the client shut the server down: stop here; finished batches stay.
        if cancelled || server.lifecycle == .shutDown {
            progress(.end(message: "cancelled"))
            reply.fail(.requestCancelled(data: counts.json))
            return
        }
        server.connection.loop.schedule { [self] in nextBatch() }
    }

    /// Commits the batch; if its writes were rolled back instead (the commit
    /// or a statement failed, here or in a request served meanwhile), the run
    /// ends with that error and returns true. Batches committed before stay.
    private func commitBatch() -> Bool {
        guard !options.dryRun, let batchCommits else { return false }
        guard case .failure(let failure) = server.gate.commit(ending: batchCommits) else { return false }
        progress(.end(message: "failed: a batch could not be committed"))
        reply.fail(failure.responseError)
        return true
    }

    private func finish() {
        guard !reply.isDone else { return }
        if commitBatch() { return }
        progress(.report(percentage: 100, message: "\(visited) of \(total) stored objects looked at, \(counts.migrated) migrated"))
        progress(.end(message: "\(counts.migrated) migrated, \(counts.failed) failed"))
        server.gate.answer(reply, .success(counts.json), after: .commit)
    }
}
