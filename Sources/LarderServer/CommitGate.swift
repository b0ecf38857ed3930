import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// The one owner of "answers leave in request order, after the commit they
/// depend on".
///
/// A burst of requests shares one transaction (group commit). An answer that
/// acknowledges a write waits here until that transaction commits, and so
/// does every answer and event that follows it, whatever path it took —
/// a `Reply`, a request answered straight from its bytes, a notification —
/// so that messages leave in the order things happened however the input
/// was split into reads. The connection asks `isHolding` before it flushes
/// early, and `commit()` when it flushes. If the commit fails, each held
/// answer becomes its error; work spanning several commits (`migrate.run`'s
/// batches) learns of a failure among them through a `CommitWatch`.
final class CommitGate {
    /// When an answer may leave.
    enum Release {
        /// Now, unless answers are held: then in its turn after them.
        case now
        /// Once what the store has pending is committed; now if nothing is
        /// pending or held.
        case commit
    }

    private unowned let connection: Connection
    var store: Store
    /// Told once the store's database file is found deleted or replaced at a commit.
    var onStoreLost: (StoreError) -> Void = { _ in }

    private var held: [Held] = []
    private enum Held {
        case answer(Reply, Result<JSON, ResponseError>)
        /// An answer that waits for the store to decide a write (`PendingWrite`).
        case decided(Reply, PendingWrite, result: (PendingWrite.Written) -> JSON)
        /// The answer to a request answered straight from its bytes (it has no
        /// `Reply`): its result's JSON text lies at `result` in `heldResults`.
        case direct(RequestID, result: Range<Int>)
        case directFailure(RequestID, ResponseError)
        /// The answer to a request answered straight from its bytes whose
        /// write the store decides as it runs it (`PendingWrite`): written
        /// by `result` once the commit has settled what the write did.
        case pending(RequestID, PendingWrite, result: (PendingWrite.Written, inout JSONWriter) -> Void)
        /// A notification, sent by calling it.
        case event(() -> Void)
    }
    /// The JSON text of held direct results, one after another; emptied at
    /// each commit. One buffer for all of them, not an allocation each.
    private var heldResults = JSONWriter(capacity: 64 * 1024)
    /// Whether another process's commits were looked for since the last commit.
    private var lookedForOtherWriters = false
    /// Commits that failed so far, and the last one's error, for `CommitWatch`.
    private var failures = 0
    private var lastFailure: StoreError?

    /// Writes waiting for one commit are released together; past this many,
    /// commit without waiting for the input to drain.
    static let maxHeld = 4096
    /// Past this many bytes of held direct results, commit at once too.
    static let maxHeldResultBytes = 1 << 20
    /// Commits releasing this many answers ask for memory to be given back.
    static let largeCommit = 256

    init(connection: Connection, store: Store) {
        self.connection = connection
        self.store = store
    }

    /// Whether an answer given now would overtake answers waiting for the
    /// commit: the connection then lets writes gather before flushing.
    var isHolding: Bool { !held.isEmpty }

    /// Once per burst (the requests one commit ends), before the first
    /// request's work: another process's commits since the last are taken in.
    func lookForOtherWritersOncePerBurst() {
        guard !lookedForOtherWriters else { return }
        lookedForOtherWriters = true
        do { try store.noticeForeignWrites() } catch { Log.warn("checking for other writers failed: \(error)") }
    }

    // MARK: - Answers

    /// Answers `reply` with `result` when `release` allows.
    func answer(_ reply: Reply, _ result: Result<JSON, ResponseError>, after release: Release) {
        switch release {
        case .now:
            if isHolding { hold(reply, result) } else { reply.finish(result) }
        case .commit:
            // Begun before the store was lost: nothing is answered as though it were still there.
            if let lost = store.lost { return reply.fail(lost.responseError) }
            if isHolding || store.hasPendingWrites { hold(reply, result) } else { reply.finish(result) }
        }
    }

    /// Holds the answer to `reply` until the commit has decided `write`:
    /// `result` if it went ahead; if not, the request fails with why, and
    /// the commit's other answers stand.
    func answer(_ reply: Reply, decided write: PendingWrite, result: @escaping (PendingWrite.Written) -> JSON) {
        reply.isDecided = true
        hold(.decided(reply, write, result: result))
    }

    private func hold(_ reply: Reply, _ result: Result<JSON, ResponseError>) {
        // The work is done; cancelling now cannot undo it, so the real answer stands.
        reply.isDecided = true
        hold(.answer(reply, result))
    }

    /// Answers a request answered straight from its bytes, its result's JSON
    /// text in `result`: `.answered` when the connection may send it now
    /// from there, `.later` when it is held here (or, for a large result
    /// read behind held answers, sent after committing them). The request's
    /// id is made only then: made for every request, it cost a memory hit
    /// about 200 instructions (callgrind), a String and a number parsed.
    func answerDirect(_ request: RequestView, result: borrowing JSONWriter, after release: Release) -> DirectAnswer {
        switch release {
        case .now:
            guard isHolding else { return .answered }
            if result.count >= Self.maxHeldResultBytes { return commitThenAnswer(request.id) }
        case .commit:
            if !isHolding && !store.hasPendingWrites { return .answered }
        }
        let start = heldResults.count
        result.withBytes { heldResults.writeRaw($0) }
        hold(.direct(request.id, result: start..<heldResults.count))
        // Their results must not pile up either (`hold` bounds their number):
        // 200 gets of an 8 MiB value pipelined behind a write held 1.6 GB
        // until the input ran dry.
        if heldResults.count >= Self.maxHeldResultBytes { commit() }
        return .later
    }

    /// A large result read behind answers waiting for a commit: the commit
    /// comes now, and the result is sent from where it lies rather than
    /// copied to wait among the held ones (being over `maxHeldResultBytes`,
    /// the copy would have been committed at once anyway). A 60 MB value
    /// got right behind its set was otherwise in memory once more. If the
    /// commit fails, what was read from it fails too, as when held.
    @inline(never)
    private func commitThenAnswer(_ id: RequestID) -> DirectAnswer {
        guard case .failure(let failure) = commit() else { return .answered }
        connection.respond(to: id, with: .failure(failure.responseError))
        return .later
    }

    /// Holds the answer to a request answered straight from its bytes whose
    /// write is still to be decided by the store (`PendingWrite`) until the
    /// commit: `result` writes it then if the write went ahead; if not, the
    /// request fails with why, and the commit's other answers stand.
    func answerDirect(_ request: RequestView, pending write: PendingWrite,
                      result: @escaping (PendingWrite.Written, inout JSONWriter) -> Void) -> DirectAnswer {
        hold(.pending(request.id, write, result: result))
        return .later
    }

    /// Fails a request answered straight from its bytes: now, or in its turn
    /// after the answers held.
    func answerDirect(_ id: RequestID, error: ResponseError) {
        if isHolding { hold(.directFailure(id, error)) } else { connection.respond(to: id, with: .failure(error)) }
    }

    /// Sends a notification in its place among the answers: after the
    /// pending commit if anything waits for it.
    func notify<N: NotificationDefinition>(_ notification: N.Type, _ params: N.Params) {
        if !isHolding && !store.hasPendingWrites {
            connection.send(N.self, params)
        } else {
            let connection = connection
            held.append(.event { connection.send(N.self, params) })
        }
    }

    private func hold(_ message: Held) {
        held.append(message)
        // Answers held behind a write must not pile up without bound while input keeps coming.
        if held.count >= Self.maxHeld { commit() }
    }

    // MARK: - Commits

    /// A request failed. If the error doomed the open transaction (see
    /// `Store.transactionFailed`), the answers waiting for it get the error
    /// at once, and requests after this one start a fresh transaction
    /// rather than join one that can only be rolled back.
    func settleFailedRequest() {
        store.requestFailed()
        if store.transactionFailed { commit() }
    }

    /// Commits the open transaction and releases the answers and events that
    /// waited for it; if the commit fails, each answer gets the error instead
    /// (the events are dropped: what they told of was rolled back).
    @discardableResult
    func commit() -> Result<Void, StoreError> {
        lookedForOtherWriters = false
        // Like the look for other processes' writes, per burst: a burst waits for a lock once.
        store.waitForLocksAgain()
        let waiting = held
        held = []
        // A burst of writes leaves freed memory behind; give it back at the next pause.
        if waiting.count >= Self.largeCommit { connection.loop.wantQuiet() }
        defer { releaseHeldResults() }
        do {
            let wrote = store.hasPendingWrites
            try store.commit()
            // The answers acknowledge the commit: only if it went into the file the next start opens.
            if wrote { try store.checkInPlace() }
        } catch {
            // Everything since the last commit may rest on what was rolled back, or be in a lost file.
            if case .lost = error { onStoreLost(error) } else { Log.error("commit failed: \(error)") }
            failures += 1
            lastFailure = error
            for message in waiting {
                switch message {
                case .answer(let reply, _), .decided(let reply, _, _): reply.fail(error.responseError)
                case .direct(let id, _), .directFailure(let id, _), .pending(let id, _, _):
                    connection.respond(to: id, with: .failure(error.responseError))
                case .event: break
                }
            }
            return .failure(error)
        }
        for message in waiting {
            switch message {
            case .answer(let reply, let result): reply.finish(result)
            case .decided(let reply, let write, let result): reply.finish(write.outcome().map(result).mapError(\.responseError))
            case .direct(let id, let range):
                heldResults.withBytes(from: range.lowerBound) {
                    connection.respond(to: id, withResultJSON: UnsafeBufferPointer(rebasing: $0.prefix(range.count)))
                }
            case .directFailure(let id, let error): connection.respond(to: id, with: .failure(error))
            case .pending(let id, let write, let result): answer(id, write, result)
            case .event(let send): send()
            }
        }
        return .success(())
    }

    /// Answers a request whose write the commit just decided.
    private func answer(_ id: RequestID, _ write: PendingWrite, _ result: (PendingWrite.Written, inout JSONWriter) -> Void) {
        switch write.outcome() {
        case .success(let written):
            var json = JSONWriter(capacity: 64)
            result(written, &json)
            json.withBytes { connection.respond(to: id, withResultJSON: $0) }
        case .failure(let error):
            connection.respond(to: id, with: .failure(error.responseError))
        }
    }

    /// Starts watching the commits to come, for work whose writes may land
    /// in several of them: a batch that waits for the client between its
    /// writes is committed in parts by the flushes meanwhile.
    func watch() -> CommitWatch {
        CommitWatch(failuresBefore: failures)
    }

    /// Commits, and ends `watch`: the failure of this commit or, failing
    /// that, of the last commit that failed since the watch began.
    func commit(ending watch: CommitWatch) -> Result<Void, StoreError> {
        let result = commit()
        guard case .success = result, failures != watch.failuresBefore, let lastFailure else { return result }
        return .failure(lastFailure)
    }

    /// Empties the held results' buffer; one that grew for large results
    /// (a big value read behind a write) goes back to its first size.
    private func releaseHeldResults() {
        if heldResults.capacity > 1 << 20 { heldResults = JSONWriter(capacity: 64 * 1024) } else { heldResults.reset() }
    }
}

/// The commits from one moment on, as `CommitGate.watch()` began them: a
/// value, so that work which stops early has nothing to unregister.
struct CommitWatch {
    fileprivate let failuresBefore: Int
}
