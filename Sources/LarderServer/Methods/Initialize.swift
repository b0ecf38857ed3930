import LarderCore
import LarderJSON
import LarderPostgreSQL
import LarderRPC
import LarderStorage

/// `initialize`: optional; when sent, the first request. Names the client,
/// may choose the store, and learns the server's capabilities.
///
/// Stock LSP clients send it with LSP's `InitializeParams`: every member of
/// those is accepted (and those Larder has no use for are ignored), and the
/// members of `capabilities` that Larder does not know are ignored too — a
/// client announces there what it can do, which is a negotiation, not a
/// request. Every other member is refused as in any method.
enum Initialize: MethodDefinition {
    static let method = "initialize"

    struct Params: ParamsObject {
        /// Larder's own, then LSP's `InitializeParams`.
        static let members = [
            "clientInfo", "appVersion", "store", "encryption", "capabilities",
            "processId", "locale", "rootPath", "rootUri", "initializationOptions", "trace", "workspaceFolders", "workDoneToken",
        ]
        let clientInfo: ClientInfo?
        let appVersion: String?
        let store: StoreChoice?
        let encryption: Encryption?
        let capabilities: Capabilities

        init(_ p: ParamsReader) throws(ResponseError) {
            clientInfo = try p.optional("clientInfo", as: ClientInfo.self)
            store = try p.optional("store", as: StoreChoice.self)
            encryption = try p.optional("encryption", as: Encryption.self)
            appVersion = try p.optional("appVersion", as: String.self)
            if appVersion?.isEmpty == true { throw .invalidParams("\(p.path).appVersion must not be empty") }
            capabilities = try p.optional("capabilities", as: Capabilities.self) ?? Capabilities()
        }
    }

    /// `clientInfo`, as LSP defines it.
    struct ClientInfo: ParamsObject {
        static let members = ["name", "version"]
        static let requiredMembers = ["name"]
        let name: String
        let version: String?

        init(_ p: ParamsReader) throws(ResponseError) {
            name = try p.require("name", as: String.self)
            version = try p.optional("version", as: String.self)
        }

        var json: JSON {
            var o: JSONObject = ["name": .string(name)]
            if let version { o.append("version", .string(version)) }
            return .object(o)
        }
    }

    /// `store`: the store to use instead of the one from the command line: a
    /// directory (`path`), or a PostgreSQL database (`url`, and `schema`,
    /// `coherence`).
    struct StoreChoice: ParamsObject {
        static let members = ["path", "url", "schema", "coherence"]
        let location: StoreLocation

        init(_ p: ParamsReader) throws(ResponseError) {
            let path = try p.optional("path", as: String.self)
            let url = try p.optional("url", as: String.self)
            let schema = try p.optional("schema", as: String.self)
            if path?.isEmpty == true { throw .invalidParams("\(p.path).path must not be empty") }
            if schema?.isEmpty == true { throw .invalidParams("\(p.path).schema must not be empty") }
            if let why = schema.flatMap(PostgresStore.schemaRefusal) { throw .invalidParams("\(p.path).schema: \(why.echoed)") }
            var coherence: PostgresCoherence?
            if let name = try p.optional("coherence", as: String.self) {
                switch StoreLocation.coherence(named: name) {
                case .success(let c): coherence = c
                case .failure(let e): throw .invalidParams("\(p.path).coherence \(e.message)")
                }
            }
            switch (path, url) {
            case (let path?, nil):
                if let why = StoreLocation.unknownScheme(path, from: "\(p.path).path") { throw .invalidParams(why) }
                guard !PostgresStore.isURL(path) else {
                    throw .invalidParams("\(p.path).path is a PostgreSQL URL, not a directory: give it as \(p.path).url")
                }
                guard schema == nil else { throw .invalidParams("\(p.path).schema is for a store on PostgreSQL (url), not for a path") }
                guard coherence == nil else { throw .invalidParams("\(p.path).coherence is for a store on PostgreSQL (url), not for a path") }
                location = .directory(path)
            case (nil, let url?):
                guard PostgresStore.isURL(url) else {
                    let meant = PostgresStore.scheme(of: url).flatMap { NearestName.suggestion(for: String($0), among: PostgresStore.schemes) }
                    throw .invalidParams("\(p.path).url must be a postgresql:// or postgres:// URL, not \(PostgresStore.redacted(url).echoed)"
                                         + (meant.map { " (did you mean \($0)://?)" } ?? ""))
                }
                location = .postgreSQL(url: url, schema: schema ?? PostgresStore.defaultSchema, coherence: coherence ?? .strict)
            case (nil, nil): throw .invalidParams("\(p.path) needs path (a directory) or url (a PostgreSQL database)")
            case (_?, _?): throw .invalidParams("\(p.path) takes path or url, not both")
            }
        }
    }

    /// `encryption`: the keys for encrypted caches, each base64 of 32 bytes:
    /// `key` for every one, `keys` for named ones (overriding `key`).
    struct Encryption: ParamsObject {
        static let members = ["key", "keys"]
        let keys: EncryptionKeys

        init(_ p: ParamsReader) throws(ResponseError) {
            var keys = EncryptionKeys(key: nil)
            if let text = try p.optional("key", as: String.self) { keys.key = try EncryptionKey(base64: text, at: "\(p.path).key") }
            if let byCache = p["keys"] {
                guard case .object(let o) = byCache else { throw .invalidParams("\(p.path).keys must be an object of cache names to keys") }
                for (name, value) in o.members {
                    guard case .string(let text) = value else { throw .invalidParams("\(p.path).keys.\(name.echoed) must be a string (base64 of 32 bytes)") }
                    keys.byCache[name] = try EncryptionKey(base64: text, at: "\(p.path).keys.\(name.echoed)")
                }
            }
            self.keys = keys
        }
    }

    /// What the client can do. Members Larder does not know are ignored
    /// (this type alone is not a `ParamsObject`): an LSP client lists its
    /// editor features here, and a newer client may list newer ones.
    struct Capabilities: ParamDecodable {
        static let expectation = "object"
        /// Subscribe to events of every cache.
        var events = false
        /// The client answers `migrate.object`.
        var migrationCallbacks = false
        /// The client answers `cache.fetch` (and, with `fallback`, `cache.fallback`).
        var fetch = false
        var fallback = false

        init() {}

        static func decode(_ json: JSON, at path: String) throws(ResponseError) -> Capabilities {
            let p = try ParamsReader.decode(json, at: path)
            var c = Capabilities()
            c.events = try p.optional("events", as: Bool.self) ?? false
            c.migrationCallbacks = try p.optional("migrationCallbacks", as: Bool.self) ?? false
            c.fetch = try p.optional("fetch", as: Bool.self) ?? false
            c.fallback = try p.optional("fallback", as: Bool.self) ?? false
            return c
        }
    }

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        let server = r.server
        server.clientInfo = p.clientInfo?.json
        if let location = p.store?.location, location.description != server.store.location {
            do {
                server.replaceStore(with: try location.open(clock: server.store.clock, pgTimeout: server.options.pgTimeout))
            } catch {
                throw error.responseError
            }
        }
        if let encryption = p.encryption {
            var keys = encryption.keys
            if keys.key == nil { keys.key = server.options.encryptionKey }
            server.store.useEncryptionKeys(keys)
        }
        let appVersion = p.appVersion ?? server.options.appVersion
        if let appVersion { try server.mappingStoreErrors { () throws(StoreError) in try server.store.declareAppVersion(appVersion) } }
        if p.capabilities.events { server.events.subscribeAll() }
        server.migrationCallbacks = p.capabilities.migrationCallbacks
        server.flights.clientFetches = p.capabilities.fetch
        server.flights.clientFallsBack = p.capabilities.fallback
        server.lifecycle = .running
        return .result(Result(
            methods: MethodTable.names(includingTestOnly: server.options.enableTestMethods),
            maxMessageBytes: server.options.maxMessageBytes,
            storePath: server.store.isPersistent ? server.store.location : nil, persistent: server.store.isPersistent, maxStoreBytes: server.store.maxStoreBytes,
            appVersion: appVersion, previousAppVersion: server.store.previousAppVersion.flatMap { $0 == appVersion ? nil : $0 },
            coherence: PostgresStore.coherence(of: server.store.otherWriters)))
    }

    struct Result: MethodResult {
        /// Every method this server answers: a client checks here for what it needs.
        let methods: [String]
        let maxMessageBytes: Int
        let storePath: String?
        let persistent: Bool
        /// The store-wide disk budget, when there is one.
        let maxStoreBytes: Int?
        /// The app's version, if declared (here or with `--app-version`).
        let appVersion: String?
        /// The version the store last saw, when it was another.
        let previousAppVersion: String?
        /// A store on PostgreSQL: how it learns of other sidecars' commits.
        let coherence: PostgresCoherence?

        private var storeJSON: JSON {
            var o: JSONObject = ["path": storePath.map(JSON.string) ?? .null, "persistent": .bool(persistent)]
            if let maxStoreBytes { o.append("maxBytes", .int(maxStoreBytes)) }
            if let coherence { o.append("coherence", .string(coherence.rawValue)) }
            return .object(o)
        }

        var json: JSON {
            var o: JSONObject = [
                "serverInfo": ["name": "larder", "version": .string(Version.larder)],
                "protocolVersion": .string(Version.protocolVersion),
                "capabilities": [
                    "methods": .array(methods.map(JSON.string)),
                    "framing": .array([.string(Framing.lines.rawValue), .string(Framing.contentLength.rawValue)]),
                    "limits": [
                        "maxMessageBytes": .int(maxMessageBytes),
                        "maxDepth": .int(LarderJSON.JSONParser.defaultMaxDepth),
                    ],
                ],
                "store": storeJSON,
            ]
            if let appVersion { o.append("appVersion", .string(appVersion)) }
            if let previousAppVersion { o.append("previousAppVersion", .string(previousAppVersion)) }
            return .object(o)
        }
    }
}

extension EncryptionKey {
    /// A key given in params as base64 of 32 bytes; -32602 naming `path` otherwise.
    init(base64 text: String, at path: String) throws(ResponseError) {
        do { try self.init(base64: text) } catch { throw .invalidParams("\(path): \(error.reason)") }
    }
}
