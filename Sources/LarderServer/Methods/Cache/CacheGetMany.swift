import LarderCore
import LarderJSON
import LarderRPC

/// `cache.getMany`: several keys at once, as a map from key to what `cache.get` answers.
enum CacheGetMany: MethodHandler {
    static let method = "cache.getMany"
    static let requiredParams = ["keys"]

    static func handle(_ r: Request) throws(ResponseError) -> Response {
        let keys = try r.params.require("keys", as: [String].self)
        let group = try r.params.group()
        for (i, k) in keys.enumerated() { _ = try r.params.nonEmptyKey(k, at: "\(r.params.path).keys[\(i)]") }
        let cache = try r.server.cache(r, create: false)
        var entries = JSONObject()
        for k in keys where entries[k] == nil {
            let found = try r.server.core { () throws(StoreError) in try cache?.get(EntryKey(group: group, key: k)) }
            entries.append(k, found?.json ?? Cache.Lookup.notFound)
        }
        return .result(["entries": .object(entries)])
    }
}
