import LarderCore
import LarderJSON
import LarderRPC

/// `cache.list`: every cache in the store with its settings and size.
enum CacheList: MethodHandler {
    static let method = "cache.list"

    static func handle(_ r: Request) throws(ResponseError) -> Response {
        let caches = try r.server.core { () throws(StoreError) in try r.server.store.allCaches() }
        return .result(["caches": .array(caches.map { c in
            ["name": .string(c.name), "config": c.config.json, "count": .int(c.count), "bytes": .int(c.bytes)]
        })])
    }
}
