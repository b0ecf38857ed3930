import LarderCore
import LarderJSON
import LarderRPC

/// `object.copy`: copies a stored object, as stored, to another key (and cache or group).
enum ObjectCopy: MethodHandler {
    static let method = "object.copy"
    static let requiredParams = ["key", "toKey"]

    static func handle(_ r: Request) throws(ResponseError) -> Response {
        let from = try r.params.entryKey()
        let toKey = try r.params.nonEmptyKey(try r.params.require("toKey", as: String.self), at: "params.toKey")
        let toGroup = try r.params.optional("toGroup", as: String.self) ?? from.group
        let sourceCacheName = try r.params.cacheName()
        let toCacheName = try r.params.optional("toCache", as: String.self) ?? sourceCacheName
        guard !toCacheName.isEmpty else { throw .invalidParams("params.toCache must not be empty") }
        let server = r.server
        let missing = ResponseError.requestFailed("no object under key \"\(from.key)\"", data: ["key": .string(from.key)])
        guard let source = try server.cache(r, create: false) else { throw missing }
        let copied = try server.core { () throws(StoreError) -> StoredObject? in
            guard let (stored, entry) = try source.storedObject(from) else { return nil }
            let target = try server.store.cache(named: toCacheName, create: true)!
            try target.set(Cache.Write(key: EntryKey(group: toGroup, key: toKey), kind: .object, bytes: stored.json.encoded, ttl: entry.ttl))
            return stored
        }
        guard let copied else { throw missing }
        return .afterCommit(["copied": true, "type": .string(copied.type), "version": .string(copied.version.text)])
    }
}
