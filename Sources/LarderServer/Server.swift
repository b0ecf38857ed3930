import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// Joins the transport and the persistence core: lifecycle, dispatch through
/// the method table, error mapping, and group commit.
final class Server: MessageHandler {
    let options: ServerOptions
    unowned let connection: Connection
    private(set) var store: Store {
        didSet { gate.store = store }
    }
    /// Holds answers and events until the commit they depend on.
    let gate: CommitGate
    var lifecycle = Lifecycle.waiting
    var clientInfo: JSON?
    var events = EventSubscriptions() {
        didSet { watchEvents() }
    }
    /// The client declared `migrationCallbacks` in `initialize`: it answers `migrate.object`.
    var migrationCallbacks = false
    /// Fetches from the client in flight (`cache.getOrFetch`).
    private(set) lazy var flights = FetchFlights(server: self)
    /// `lock.acquire` requests waiting for their name.
    private(set) lazy var lockWaits = LockWaits(server: self)

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
        directMethods = options.directAnswers
            ? [CacheGet.methodName, CacheSet.methodName, CacheGetOrFetch.methodName, CacheIncrement.methodName,
               LockAcquire.methodName, LockRelease.methodName]
            : []
        self.store = store
        self.connection = connection
        gate = CommitGate(connection: connection, store: store)
        gate.onStoreLost = { [unowned self] in storeWasLost($0) }
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
        connection.loop.after(milliseconds: milliseconds) { [weak self] in self?.purgeExpired() }
    }

    private func purgeExpired() {
        // Once the input has ended the process is on its way out.
        guard !connection.loop.inputEnded else { return }
        var more = false
        if case .running = lifecycle {
            store.beginRequest()
            do {
                more = try store.purgeExpiredInBackground(budget: Self.purgeBudget)
            } catch {
                gate.settleFailedRequest()
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
            EventSubscriptions.send(event, through: gate)
        }
    }

    // MARK: - MessageHandler

    func handle(request method: String, params: JSON?, reply: Reply) {
        if let refusal = lifecycleRefusal(for: method) {
            gate.answer(reply, .failure(refusal), after: .now)
            return
        }
        guard let entry = MethodTable.byName[method], !entry.isTestOnly || options.enableTestMethods else {
            gate.answer(reply, .failure(.methodNotFound(method, known: MethodTable.names(includingTestOnly: options.enableTestMethods))),
                        after: .now)
            return
        }
        begin(method)
        do {
            switch try entry.handle(params, Request(reply: reply, server: self)) {
            case .result(let json): gate.answer(reply, .success(json), after: .now)
            case .afterCommit(let json): gate.answer(reply, .success(json), after: .commit)
            case .deferred: break
            case .afterDecided(let write, let result): gate.answer(reply, decided: write, result: result)
            }
        } catch {
            gate.settleFailedRequest()
            gate.answer(reply, .failure(error), after: .now)
        }
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
        gate.lookForOtherWritersOncePerBurst()
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
            connection.loop.stop(exitCode: lifecycle == .shutDown ? 0 : 1)
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
    var isHolding: Bool { gate.isHolding }

    func willFlush() {
        gate.commit()
    }

    func connectionClosed() {
        gate.commit()
        store.close()
        // Closing looks once more: a store lost after the last write is reported too.
        if let lost = store.lost { storeWasLost(lost) }
    }

    /// From now on every request is refused; said once on stderr.
    func storeWasLost(_ error: StoreError) {
        guard !storeIsLost else { return }
        lifecycle = .storeLost(error)
        Log.error("\(error.responseError.message); refusing every request, and exiting with code \(Self.storeLostExitCode)")
    }

    func handle(invalidMessage error: ResponseError, reply: Reply) {
        gate.answer(reply, .failure(error), after: .now)
    }
}
