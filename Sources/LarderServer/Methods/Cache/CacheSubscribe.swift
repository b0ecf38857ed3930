import LarderJSON
import LarderRPC

/// `cache.subscribe`: asks for `cache.evicted`, `cache.removed` and
/// `cache.cleared` notifications, for one cache or (without `cache`) for all,
/// with the entries' values or without.
enum CacheSubscribe: MethodDefinition {
    static let method = "cache.subscribe"

    struct Params: ParamsObject {
        static let members = ["cache", "withValues"]
        /// Nil: every cache.
        let cache: String?
        /// `cache.evicted` and `cache.removed` carry the entry's value.
        let withValues: Bool
        init(_ p: ParamsReader) throws(ResponseError) {
            cache = p.contains("cache") ? try p.cacheName() : nil
            withValues = try p.optional("withValues", as: Bool.self) ?? false
        }
    }

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        if let name = p.cache {
            r.server.events.subscribe(name, withValues: p.withValues)
        } else {
            r.server.events.subscribeAll(withValues: p.withValues)
        }
        return .result(Result(subscribed: p.cache ?? "*"))
    }

    struct Result: MethodResult {
        /// The cache, or "*" for every cache.
        let subscribed: String
        var json: JSON { ["subscribed": .string(subscribed)] }
    }
}
