import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// `cache.drop`: deletes a cache, its settings and all its entries.
enum CacheDrop: MethodDefinition {
    static let method = "cache.drop"

    struct Params: ParamsObject {
        static let members = ["cache"]
        static let requiredMembers = ["cache"]
        let cache: String

        init(_ p: ParamsReader) throws(ResponseError) {
            // No default here: dropping "default" by omission would be a nasty surprise.
            guard p.contains("cache") else { throw .invalidParams("missing required parameter \(p.path).cache (string)") }
            cache = try p.cacheName()
        }
    }

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        try r.server.mappingStoreErrors { () throws(StoreError) in try r.server.store.drop(p.cache) }
        return .afterCommit(Result())
    }

    struct Result: MethodResult {
        var json: JSON { ["dropped": true] }
    }
}
