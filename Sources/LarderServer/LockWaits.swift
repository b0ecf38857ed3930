import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage
import LarderSystem

/// `lock.acquire` requests waiting for a name (`wait`), answered when they
/// get the lease or their wait ends, while every other request is served
/// meanwhile, as `cache.getOrFetch` waits for the client (`FetchFlights`).
///
/// A name held by another session is looked at again every
/// `recheckMilliseconds` by reading its row, outside any write: nothing else
/// tells in time that a lease held elsewhere ended, as it may end by expiry,
/// which no process writes. Only when the row shows the name free does a
/// waiter try for it in a write transaction (the writer's lock), so waiting
/// costs other writers nothing. On a store directory a read is a few
/// microseconds; on PostgreSQL one round trip per name waited for.
final class LockWaits {
    private unowned let server: Server

    /// How often a name waited for is looked at: its holder's release or
    /// expiry is seen at most this long after it happened (plus a write
    /// transaction to take it).
    static let recheckMilliseconds = 10

    private struct Waiter {
        let reply: Reply
        /// Milliseconds.
        let ttl: Int64
        /// When its wait ends, on the monotonic clock (milliseconds).
        let deadline: Int64
    }

    /// Per name, its waiters in the order they came.
    private var queues: [String: [Waiter]] = [:]
    private var timer: TimerID?

    init(server: Server) {
        self.server = server
    }

    func hasWaiters(for name: String) -> Bool { queues[name] != nil }

    /// `reply` waits up to `milliseconds` for the lease on `name`, behind the waiters already there.
    func wait(_ reply: Reply, name: String, ttl: Int64, milliseconds: Int64) {
        queues[name, default: []].append(Waiter(reply: reply, ttl: ttl, deadline: MonotonicClock.milliseconds() + milliseconds))
        // A look already due is not put off by waiters arriving.
        if timer == nil { schedule(after: Self.recheckMilliseconds) }
    }

    /// A lease was given back here: its waiters look at once rather than at the next tick.
    func recheckSoon() {
        guard !queues.isEmpty else { return }
        schedule(after: 0)
    }

    private func schedule(after milliseconds: Int) {
        if let timer { server.connection.loop.cancel(timer) }
        timer = server.connection.loop.after(milliseconds: milliseconds) { [weak self] in self?.recheck() }
    }

    private func recheck() {
        timer = nil
        let loop = server.connection.loop
        let now = MonotonicClock.milliseconds()
        var nextDeadline = Int64.max
        for (name, queue) in queues {
            let ending = loop.inputEnded || server.lifecycle == .shutDown
            let remaining = ending ? cancel(queue) : serve(name, queue, now: now)
            queues[name] = remaining.isEmpty ? nil : remaining
            for w in remaining { nextDeadline = min(nextDeadline, w.deadline) }
        }
        guard !queues.isEmpty else { return }
        schedule(after: Int(max(0, min(Int64(Self.recheckMilliseconds), nextDeadline - now))))
    }

    /// The client has gone, or shut the server down: nothing it waits for is taken for it.
    private func cancel(_ queue: [Waiter]) -> [Waiter] {
        for w in queue where !w.reply.isDone {
            w.reply.fail(ResponseError(code: .requestCancelled, message: "the wait ended with the session"))
        }
        return []
    }

    /// Gives the name to the first waiter if it looks free, answers the
    /// waiters whose wait ended, and returns those still waiting.
    private func serve(_ name: String, _ queue: [Waiter], now: Int64) -> [Waiter] {
        // Cancelled ones were answered with -32800 already.
        let queue = queue.filter { !$0.reply.isDone }
        guard !queue.isEmpty else { return [] }
        var free: Bool
        do {
            free = try server.store.lockIsFree(name)
        } catch {
            // Looked at again at the next tick; a waiter whose wait ends meanwhile gets the error below.
            free = false
        }
        var remaining: [Waiter] = []
        for w in queue {
            let due = w.deadline <= now
            guard (free && remaining.isEmpty) || due else {
                remaining.append(w)
                continue
            }
            // A waiter whose wait ended tries once more, and is answered whatever that comes to.
            server.store.beginRequest()
            let result: Result<LockAcquisition, ResponseError>
            do {
                result = .success(try server.mappingStoreErrors { () throws(StoreError) in try server.store.acquireLock(name, ttl: w.ttl) })
            } catch {
                server.gate.settleFailedRequest()
                result = .failure(error)
            }
            switch result {
            case .success(.acquired):
                free = false
            case .success(.held) where !due:
                // Another process or sidecar took it between the look and the write.
                free = false
                remaining.append(w)
                continue
            default:
                break
            }
            server.gate.answer(w.reply, result.map { LockAcquire.Result($0).json }, after: .commit)
        }
        return remaining
    }
}
