import LarderCore
import LarderRPC

/// `cache.get`: the value under a key, from memory or disk.
enum CacheGet: MethodHandler {
    static let method = "cache.get"
    static let requiredParams = ["key"]

    static func handle(_ r: Request) throws(ResponseError) -> Response {
        let key = try r.params.entryKey()
        guard let cache = try r.server.cache(r, create: false) else { return .result(Cache.Lookup.notFound) }
        let found = try r.server.core { () throws(StoreError) in try cache.get(key) }
        return .result(found?.json ?? Cache.Lookup.notFound)
    }
}
