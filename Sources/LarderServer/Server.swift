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
    /// Results of writes in the open transaction, sent after it commits.
    private var awaitingCommit: [(Reply, JSON)] = []
    /// Handlers that run when the connection closes.
    var clientInfo: JSON?

    enum Lifecycle: Equatable {
        /// No request yet: `initialize` may still come (and must come first).
        case waiting
        /// Serving, with or without an `initialize`.
        case running
        /// `shutdown` was answered; only `exit` is accepted.
        case shutDown
    }

    init(options: ServerOptions, store: Store, connection: Connection) {
        self.options = options
        self.store = store
        self.connection = connection
    }

    func replaceStore(with newStore: Store) {
        store.close()
        store = newStore
    }

    // MARK: - MessageHandler

    func handle(request method: String, params: JSON?, reply: Reply) {
        guard let entry = MethodTable.byName[method], !entry.isTestOnly || options.enableTestMethods else {
            reply.fail(.methodNotFound(method))
            return
        }
        if let refusal = lifecycleRefusal(for: method) {
            reply.fail(refusal)
            return
        }
        if lifecycle == .waiting { lifecycle = .running }
        let request = Request(params: Params(params), reply: reply, server: self)
        do {
            switch try entry.handle(request) {
            case .result(let json): reply.succeed(json)
            case .afterCommit(let json): awaitingCommit.append((reply, json))
            case .deferred: break
            }
        } catch {
            reply.fail(error)
        }
    }

    private func lifecycleRefusal(for method: String) -> ResponseError? {
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
        }
    }

    func handle(notification method: String, params: JSON?) {
        switch method {
        case "exit":
            connection.stop(exitCode: lifecycle == .shutDown ? 0 : 1)
        case "initialized":
            break
        default:
            // Notifications are never answered, not even when unknown.
            Log.debug("ignored notification \(method)")
        }
    }

    func willFlush() {
        commit()
    }

    func connectionClosed() {
        commit()
        store.close()
    }

    /// Commits the open transaction and releases the results that waited for it.
    private func commit() {
        guard !awaitingCommit.isEmpty else { return }
        let waiting = awaitingCommit
        awaitingCommit = []
        for (reply, json) in waiting { reply.succeed(json) }
    }
}
