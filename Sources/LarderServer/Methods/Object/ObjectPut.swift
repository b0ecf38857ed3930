import LarderCore
import LarderJSON
import LarderRPC

/// `object.put`: validates a value against the newest version of its type and stores it, tagged.
enum ObjectPut: MethodDefinition {
    static let method = "object.put"

    struct Params: ParamsObject {
        static let members = ["cache", "group", "key", "type", "value", "ttl"]
        static let requiredMembers = ["key", "type", "value"]
        let cache: String
        let key: EntryKey
        let type: String
        let value: JSON
        let ttl: Int64?

        init(_ p: ParamsReader) throws(ResponseError) {
            key = try p.entryKey()
            type = try p.require("type", as: String.self)
            guard let value = p.object["value"] else { throw .invalidParams("missing required parameter \(p.path).value (object)") }
            self.value = value
            ttl = try p.milliseconds("ttl")
            cache = try p.cacheName()
        }
    }

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        let store = r.server.store
        // Validate before anything is created: a refused put leaves no trace.
        let stored = try r.server.core { () throws(StoreError) in try ObjectValidator.tagged(p.value, as: p.type, store: store) }
        let cache = try r.server.cache(p.cache, create: true)!
        try r.server.core { () throws(StoreError) in try cache.put(stored, at: p.key, ttl: p.ttl) }
        return .afterCommit(Result(type: p.type, version: stored.version.text))
    }

    struct Result: MethodResult {
        let type: String
        /// The newest version of the type, which the value was validated against.
        let version: String
        var json: JSON { ["stored": true, "type": .string(type), "version": .string(version)] }
    }
}
