import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// `cache.list`: every cache in the store with its settings and size.
enum CacheList: MethodDefinition {
    static let method = "cache.list"
    typealias Params = NoParams

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        .result(Result(caches: try r.server.mappingStoreErrors { () throws(StoreError) in try r.server.store.allCaches() }))
    }

    struct Result: MethodResult {
        let caches: [Cache]

        var json: JSON {
            ["caches": .array(caches.map { c in
                ["name": .string(c.name), "config": c.config.json, "count": .int(c.count), "bytes": .int(c.bytes)]
            })]
        }
    }
}
