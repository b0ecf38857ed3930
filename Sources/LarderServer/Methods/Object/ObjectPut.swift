import LarderCore
import LarderJSON
import LarderRPC

/// `object.put`: validates a value against the newest version of its type and stores it, tagged.
enum ObjectPut: MethodHandler {
    static let method = "object.put"
    static let requiredParams = ["key", "type", "value"]

    static func handle(_ r: Request) throws(ResponseError) -> Response {
        let key = try r.params.entryKey()
        let type = try r.params.require("type", as: String.self)
        guard let value = r.params.object["value"] else { throw .invalidParams("missing required parameter params.value (object)") }
        let ttl = try r.params.milliseconds("ttl")
        let store = r.server.store
        // Validate before anything is created: a refused put leaves no trace.
        let stored = try r.server.core { () throws(StoreError) in try ObjectValidator.tagged(value, as: type, store: store) }
        let cache = try r.server.cache(r, create: true)!
        try r.server.core { () throws(StoreError) in try cache.put(stored, at: key, ttl: ttl) }
        return .afterCommit(["stored": true, "type": .string(type), "version": .string(stored.version.text)])
    }
}
