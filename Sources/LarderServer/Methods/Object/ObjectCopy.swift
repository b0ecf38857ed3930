import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// `object.copy`: copies a stored object (or array of objects), as stored, to another key (and cache or group).
enum ObjectCopy: MethodDefinition {
    static let method = "object.copy"

    struct Params: ParamsObject {
        static let members = ["cache", "group", "key", "toKey", "toCache", "toGroup"]
        static let requiredMembers = ["key", "toKey"]
        let cache: String
        let from: EntryKey
        let toCache: String
        let to: EntryKey

        init(_ p: ParamsReader) throws(ResponseError) {
            from = try p.entryKey()
            let toKey = try p.nonEmptyKey(try p.require("toKey", as: String.self), at: "\(p.path).toKey")
            to = EntryKey(group: try p.optional("toGroup", as: String.self) ?? from.group, key: toKey)
            cache = try p.cacheName()
            toCache = try p.optional("toCache", as: String.self) ?? cache
            guard !toCache.isEmpty else { throw .invalidParams("\(p.path).toCache must not be empty") }
        }
    }

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        let server = r.server
        let shown = p.from.key.echoed
        let missing = ResponseError.requestFailed("no object under key \"\(shown)\"", data: ["key": .string(shown)])
        guard let source = try server.cache(p.cache, create: false) else { throw missing }
        let copied = try server.mappingStoreErrors { () throws(StoreError) -> ObjectContent? in
            guard let (stored, entry) = try source.storedContent(p.from) else { return nil }
            let target = try server.store.cache(named: p.toCache, create: true)!
            try target.set(Cache.Write(key: p.to, kind: .object, bytes: stored.json.encoded, ttl: entry.ttl))
            return stored
        }
        guard let copied else { throw missing }
        return .afterCommit(Result(copied: copied))
    }

    struct Result: MethodResult {
        /// The copy: the original, as stored.
        let copied: ObjectContent
        var json: JSON {
            var o: JSONObject = ["copied": true, "type": .string(copied.type), "version": .string(copied.version.text)]
            if case .array(let array) = copied {
                o.append("form", "array")
                o.append("count", .int(array.values.count))
            }
            return .object(o)
        }
    }
}
