import LarderCore
import LarderJSON
import LarderRPC

/// `object.put`: validates a value against the newest version of its type
/// (or the older one it names) and stores it, tagged.
enum ObjectPut: MethodDefinition {
    static let method = "object.put"

    struct Params: ParamsObject {
        static let members = ["cache", "group", "key", "type", "value", "version", "ttl"]
        static let requiredMembers = ["key", "type", "value"]
        let cache: String
        let key: EntryKey
        let type: String
        let value: JSON
        /// Written at this version rather than the newest: an app whose old
        /// release still writes must be able to say so; it migrates on read.
        let version: SchemaVersion?
        let ttl: Int64?

        init(_ p: ParamsReader) throws(ResponseError) {
            key = try p.entryKey()
            type = try p.require("type", as: String.self)
            guard let value = p.object["value"] else { throw .invalidParams("missing required parameter \(p.path).value (object)") }
            self.value = value
            version = try p.optional("version", as: String.self).map { text throws(ResponseError) in
                guard let v = SchemaVersion(text) else {
                    throw .invalidParams("\(p.path).version must be a version such as 1.0.2, not \(text.echoed)")
                }
                return v
            }
            ttl = try p.milliseconds("ttl")
            cache = try p.cacheName()
        }
    }

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        let store = r.server.store
        // Validate before anything is created: a refused put leaves no trace.
        let stored = try r.server.core { () throws(StoreError) in try ObjectValidator.tagged(p.value, as: p.type, version: p.version, store: store) }
        let cache = try r.server.cache(p.cache, create: true)!
        try r.server.core { () throws(StoreError) in try cache.put(stored, at: p.key, ttl: p.ttl) }
        return .afterCommit(Result(type: p.type, version: stored.version.text))
    }

    struct Result: MethodResult {
        let type: String
        /// The version the value was validated against and stored under, as registered.
        let version: String
        var json: JSON { ["stored": true, "type": .string(type), "version": .string(version)] }
    }
}
