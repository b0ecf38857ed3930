import LarderCore
import LarderJSON
import LarderRPC

/// Joins the transport and the persistence core: lifecycle, dispatch through
/// the method table, error mapping, and group commit.
final class Server: MessageHandler {
    let options: ServerOptions
    unowned let connection: Connection
    private(set) var store: Store
    var lifecycle = Lifecycle.waiting
    /// Messages held until the open transaction commits: answers to writes,
    /// and every answer and event that follows them, so that messages leave in
    /// the order things happened however the input was split into reads.
    private var awaitingCommit: [Held] = []

    private enum Held {
        case answer(Reply, Result<JSON, ResponseError>)
        /// The answer to a request answered straight from its bytes (it has no
        /// `Reply`): its result's JSON text lies at `result` in `heldResults`.
        case direct(RequestID, result: Range<Int>)
        case directFailure(RequestID, ResponseError)
        case event(method: String, params: JSON)
    }
    /// The JSON text of held direct results, one after another; emptied at
    /// each commit. One buffer for all of them, not an allocation each.
    private var heldResults = JSONWriter(capacity: 64 * 1024)
    var clientInfo: JSON?
    var events = EventSubscriptions() {
        didSet { watchEvents() }
    }
    /// The client declared `migrationCallbacks` in `initialize`: it answers `migrate.object`.
    var migrationCallbacks = false
    /// Fetches from the client in flight (`cache.getOrFetch`).
    private(set) lazy var flights = FetchFlights(server: self)
    /// Whether another process's commits were looked for since the last flush.
    private var checkedForeignWrites = false
    /// Writes waiting for one commit are released together; past this many,
    /// commit without waiting for the input to drain.
    static let maxGroupCommit = 4096
    /// Past this many bytes of held direct results, commit at once too.
    static let maxHeldResultBytes = 1 << 20
    /// Commits releasing this many answers ask for memory to be given back.
    static let largeCommit = 256
    /// Commits that failed so far, and the last one's error: work spanning
    /// several transactions (`migrate.run`) compares the count before and
    /// after its own writes to learn whether they were rolled back.
    private(set) var failedCommits = 0
    private(set) var lastCommitFailure: StoreError?

    enum Lifecycle: Equatable {
        /// No request yet: `initialize` may still come (and must come first).
        case waiting
        /// Serving, with or without an `initialize`.
        case running
        /// `shutdown` was answered; only `exit` is accepted.
        case shutDown
        /// The store's database file was deleted or replaced (`Store.checkInPlace`):
        /// every request is refused with this error, and the process exits
        /// with `storeLostExitCode`.
        case storeLost(StoreError)
    }

    /// The exit code once the store was lost, whatever ended the connection:
    /// the client's writes since are gone, and whoever started larder must know.
    static let storeLostExitCode: Int32 = 3

    var storeIsLost: Bool {
        if case .storeLost = lifecycle { return true }
        return false
    }

    /// Requests answered straight from their bytes (see DirectAnswers.swift).
    let directMethods: [StaticString]

    init(options: ServerOptions, store: Store, connection: Connection) {
        self.options = options
        directMethods = options.directAnswers ? [CacheGet.methodName, CacheSet.methodName, CacheGetOrFetch.methodName] : []
        self.store = store
        self.connection = connection
        store.useEncryptionKeys(EncryptionKeys(key: options.encryptionKey))
        store.maxStoreBytes = options.maxStoreBytes
        listenToStore()
        // On a fixed clock (tests) time moves only when told: expired entries
        // stay until the client purges them, as the tests expect to see them.
        if !store.clock.isFixed { purgeExpiredLater(milliseconds: Self.purgeInterval) }
    }

    /// Between requests, expired entries are removed in steps of at most
    /// `purgeBudget` (SPEC 6.6): once a second, and right after a step that
    /// left more to do.
    static let purgeInterval = 1000
    static let purgeBudget: UInt64 = 1_000_000

    private func purgeExpiredLater(milliseconds: Int) {
        connection.after(milliseconds: milliseconds) { [weak self] in self?.purgeExpired() }
    }

    private func purgeExpired() {
        // Once the input has ended the process is on its way out.
        guard !connection.inputEnded else { return }
        var more = false
        if case .running = lifecycle {
            store.beginRequest()
            do {
                more = try store.purgeExpiredInBackground(budget: Self.purgeBudget)
            } catch {
                settleFailedTransaction()
                Log.warn("purging expired entries failed: \(error)")
            }
        }
        purgeExpiredLater(milliseconds: more ? 1 : Self.purgeInterval)
    }

    func replaceStore(with newStore: Store) {
        for warning in newStore.warnings { Log.warn(warning) }
        newStore.useEncryptionKeys(store.encryptionKeys)
        newStore.maxStoreBytes = options.maxStoreBytes
        store.close()
        store = newStore
        listenToStore()
    }

    /// Fetches follow every removal, whoever makes it; events only what a client subscribed to.
    private func listenToStore() {
        store.onEntryChange = { [unowned self] in flights.entriesChanged($0) }
        watchEvents()
    }

    /// Listens to the store only once the client has subscribed: without a
    /// listener the store makes no events at all.
    private func watchEvents() {
        guard events.wantsAny else {
            store.onEvent = nil
            store.eventValues = nil
            return
        }
        store.eventValues = events.wantsAnyValues ? { [unowned self] in events.wantsValues(of: $0) } : nil
        store.onEvent = { [unowned self] event in
            guard events.wants(event) else { return }
            let n = EventSubscriptions.notification(for: event)
            notify(n.method, params: n.params)
        }
    }

    // MARK: - MessageHandler

    func handle(request method: String, params: JSON?, reply: Reply) {
        if let refusal = lifecycleRefusal(for: method) {
            answer(reply, .failure(refusal))
            return
        }
        guard let entry = MethodTable.byName[method], !entry.isTestOnly || options.enableTestMethods else {
            answer(reply, .failure(.methodNotFound(method, known: MethodTable.names(includingTestOnly: options.enableTestMethods))))
            return
        }
        begin(method)
        do {
            switch try entry.handle(params, Request(reply: reply, server: self)) {
            case .result(let json): answer(reply, .success(json))
            case .afterCommit(let json):
                hold(reply, .success(json))
            case .deferred: break
            }
        } catch {
            settleFailedTransaction()
            answer(reply, .failure(error))
        }
    }

    /// After an error that doomed the open transaction (see
    /// `Store.transactionFailed`), the answers waiting for it get the error at
    /// once, and requests after this one start a fresh transaction rather than
    /// join one that can only be rolled back.
    func settleFailedTransaction() {
        store.requestFailed()
        if store.transactionFailed { commit() }
    }

    /// What every request admitted goes through, on either path.
    func begin(_ method: String) {
        store.beginRequest()
        // A failed initialize may be tried again; anything else starts the session.
        if lifecycle == .waiting && method != Initialize.method {
            lifecycle = .running
            // No initialize: the command line's app version, if any, holds.
            if let version = options.appVersion {
                do { try store.declareAppVersion(version) } catch { Log.warn("recording the app version failed: \(error)") }
            }
        }
        if !checkedForeignWrites {
            checkedForeignWrites = true
            do { try store.noticeForeignWrites() } catch { Log.warn("checking for other writers failed: \(error)") }
        }
    }

    func lifecycleRefusal(for method: String) -> ResponseError? {
        switch lifecycle {
        case .waiting:
            if options.requireInitialize && method != Initialize.method {
                return ResponseError(code: .serverNotInitialized, message: "Server not initialized: send initialize first")
            }
            return nil
        case .running:
            if method == Initialize.method {
                return .invalidRequest("initialize must be the first request, and is accepted once")
            }
            return nil
        case .shutDown:
            return .invalidRequest("the server is shut down; only the exit notification is accepted")
        case .storeLost(let error):
            return error.responseError
        }
    }

    func handle(notification method: String, params: JSON?) {
        switch method {
        case "exit":
            connection.stop(exitCode: lifecycle == .shutDown ? 0 : 1)
        case "initialized":
            break
        default:
            // A method called as a notification runs; only its answer is dropped.
            // Unknown notifications are never answered, not even with an error:
            // `$/` ones are optional by LSP's rules and ignored quietly; any other
            // is most likely a mistake, which only stderr can tell about.
            guard MethodTable.byName[method] != nil else {
                if method.hasPrefix("$/") {
                    Log.debug("ignored notification \(method)")
                } else {
                    Log.warn("ignored a notification for an unknown method: \(ResponseError.methodNotFound(method, known: MethodTable.names(includingTestOnly: options.enableTestMethods)).message)")
                }
                return
            }
            handle(request: method, params: params, reply: .discarded(method: method))
        }
    }

    /// Answers wait for the commit: the connection should let writes gather.
    var batchesWork: Bool { answersAreWaiting }

    func willFlush() {
        commit()
    }

    func connectionClosed() {
        commit()
        store.close()
        // Closing looks once more: a store lost after the last write is reported too.
        if let lost = store.lost { storeWasLost(lost) }
    }

    /// From now on every request is refused; said once on stderr.
    private func storeWasLost(_ error: StoreError) {
        guard !storeIsLost else { return }
        lifecycle = .storeLost(error)
        Log.error("\(error.responseError.message); refusing every request, and exiting with code \(Self.storeLostExitCode)")
    }

    func handle(invalidMessage error: ResponseError, reply: Reply) {
        answer(reply, .failure(error))
    }

    /// Answers now, or after the pending commit if answers are already waiting for it.
    private func answer(_ reply: Reply, _ result: Result<JSON, ResponseError>) {
        if answersAreWaiting { hold(reply, result) } else { reply.finish(result) }
    }

    /// Sends a notification in its place among the answers: after the pending
    /// commit if anything waits for it.
    func notify(_ method: String, params: JSON) {
        if awaitingCommit.isEmpty && !store.hasPendingWrites {
            connection.notify(method, params: params)
        } else {
            awaitingCommit.append(.event(method: method, params: params))
        }
    }

    /// Answers a deferred request once the writes it made have committed.
    func finishAfterCommit(_ reply: Reply, _ result: Result<JSON, ResponseError>) {
        // Begun before the store was lost: nothing is answered as though it were still there.
        if case .storeLost(let error) = lifecycle { return reply.fail(error.responseError) }
        if store.hasPendingWrites || !awaitingCommit.isEmpty { hold(reply, result) } else { reply.finish(result) }
    }

    private func hold(_ reply: Reply, _ result: Result<JSON, ResponseError>) {
        // The work is done; cancelling now cannot undo it, so the real answer stands.
        reply.isDecided = true
        hold(.answer(reply, result))
    }

    /// Whether an answer given now would overtake answers waiting for the commit.
    var answersAreWaiting: Bool { !awaitingCommit.isEmpty }

    /// Holds the answer to a request answered from its bytes until the commit:
    /// its result, the JSON text in `result`.
    func holdDirect(_ id: RequestID, result: borrowing JSONWriter) {
        let start = heldResults.count
        result.withBytes { heldResults.writeRaw($0) }
        hold(.direct(id, result: start..<heldResults.count))
        // Their results must not pile up either (`hold` bounds their number):
        // 200 gets of an 8 MiB value pipelined behind a write held 1.6 GB
        // until the input ran dry.
        if heldResults.count >= Self.maxHeldResultBytes { commit() }
    }

    /// Holds a direct request's error until the commit.
    func holdDirect(_ id: RequestID, error: ResponseError) {
        hold(.directFailure(id, error))
    }

    private func hold(_ held: Held) {
        awaitingCommit.append(held)
        // Answers held behind a write must not pile up without bound while input keeps coming.
        if awaitingCommit.count >= Self.maxGroupCommit { commit() }
    }

    /// Commits the open transaction and releases the results that waited for
    /// it; if the commit fails, each of them gets the error instead, which is
    /// returned.
    @discardableResult
    func commit() -> StoreError? {
        checkedForeignWrites = false
        // Like the look for other processes' writes, per burst: a burst waits for a lock once.
        store.waitForLocksAgain()
        let waiting = awaitingCommit
        awaitingCommit = []
        // A burst of writes leaves freed memory behind; give it back at the next pause.
        if waiting.count >= Self.largeCommit { connection.wantQuiet() }
        defer { releaseHeldResults() }
        do {
            let wrote = store.hasPendingWrites
            try store.commit()
            // The answers acknowledge the commit: only if it went into the file the next start opens.
            if wrote { try store.checkInPlace() }
            for held in waiting {
                switch held {
                case .answer(let reply, let result): reply.finish(result)
                case .direct(let id, let range):
                    heldResults.withBytes(from: range.lowerBound) {
                        connection.respond(to: id, withResultJSON: UnsafeBufferPointer(rebasing: $0.prefix(range.count)))
                    }
                case .directFailure(let id, let error): connection.respond(to: id, with: .failure(error))
                case .event(let method, let params): connection.notify(method, params: params)
                }
            }
        } catch {
            // Everything since the last commit may rest on what was rolled back, or be in a lost file.
            if case .lost = error { storeWasLost(error) } else { Log.error("commit failed: \(error)") }
            failedCommits += 1
            lastCommitFailure = error
            for held in waiting {
                switch held {
                case .answer(let reply, _): reply.fail(error.responseError)
                case .direct(let id, _), .directFailure(let id, _): connection.respond(to: id, with: .failure(error.responseError))
                case .event: break
                }
            }
            return error
        }
        return nil
    }

    /// Empties the held results' buffer; one that grew for large results
    /// (a big value read behind a write) goes back to its first size.
    private func releaseHeldResults() {
        if heldResults.capacity > 1 << 20 { heldResults = JSONWriter(capacity: 64 * 1024) } else { heldResults.reset() }
    }
}
