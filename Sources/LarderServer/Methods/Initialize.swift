import LarderCore
import LarderJSON
import LarderRPC

/// `initialize`: optional; when sent, the first request. Names the client,
/// may choose the store, and learns the server's capabilities.
enum Initialize: MethodHandler {
    static let method = "initialize"

    static func handle(_ r: Request) throws(ResponseError) -> Response {
        let server = r.server
        server.clientInfo = try r.params.optional("clientInfo", as: Params.self).map { .object($0.object) }
        if let store = try r.params.optional("store", as: Params.self),
           let path = try store.optional("path", as: String.self), path != server.store.directory {
            guard !path.isEmpty else { throw .invalidParams("params.store.path must not be empty") }
            do {
                server.replaceStore(with: try Store(directory: path, clock: server.store.clock))
            } catch {
                throw error.responseError
            }
        }
        _ = try r.params.optional("appVersion", as: String.self)
        if let capabilities = try r.params.optional("capabilities", as: Params.self) {
            if try capabilities.optional("events", as: Bool.self) == true { server.events.subscribeAll() }
            server.migrationCallbacks = try capabilities.optional("migrationCallbacks", as: Bool.self) ?? false
        }
        server.lifecycle = .running
        return .result([
            "serverInfo": ["name": "larder", "version": .string(Version.larder)],
            "protocolVersion": .string(Version.protocolVersion),
            "capabilities": [
                "methods": .array(MethodTable.all.filter { !$0.isTestOnly || server.options.enableTestMethods }
                    .map { .string($0.method) }),
                "framing": .array([.string(Framing.lines.rawValue), .string(Framing.contentLength.rawValue)]),
                "limits": [
                    "maxMessageBytes": .int(server.options.maxMessageBytes),
                    "maxDepth": .int(LarderJSON.JSONParser.defaultMaxDepth),
                ],
            ],
            "store": [
                "path": server.store.directory.map(JSON.string) ?? .null,
                "persistent": .bool(server.store.isPersistent),
            ],
        ])
    }
}
