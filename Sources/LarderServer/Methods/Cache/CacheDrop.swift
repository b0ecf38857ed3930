import LarderCore
import LarderRPC

/// `cache.drop`: deletes a cache, its settings and all its entries.
enum CacheDrop: MethodHandler {
    static let method = "cache.drop"
    static let requiredParams = ["cache"]

    static func handle(_ r: Request) throws(ResponseError) -> Response {
        guard r.params.contains("cache") else { throw .invalidParams("missing required parameter params.cache (string)") }
        let name = try r.params.cacheName()
        try r.server.core { () throws(StoreError) in try r.server.store.drop(name) }
        return .afterCommit(["dropped": true])
    }
}
