import LarderJSON
import LarderRPC

/// `cache.subscribe`: asks for `cache.evicted` and `cache.cleared` notifications,
/// for one cache or (without `cache`) for all.
enum CacheSubscribe: MethodDefinition {
    static let method = "cache.subscribe"

    struct Params: ParamsObject {
        static let members = ["cache"]
        /// Nil: every cache.
        let cache: String?
        init(_ p: ParamsReader) throws(ResponseError) { cache = p.contains("cache") ? try p.cacheName() : nil }
    }

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        if let name = p.cache { r.server.events.subscribe(name) } else { r.server.events.subscribeAll() }
        return .result(Result(subscribed: p.cache ?? "*"))
    }

    struct Result: MethodResult {
        /// The cache, or "*" for every cache.
        let subscribed: String
        var json: JSON { ["subscribed": .string(subscribed)] }
    }
}
