import LarderRPC

/// `cache.subscribe`: asks for `cache.evicted` and `cache.cleared` notifications,
/// for one cache or (without `cache`) for all.
enum CacheSubscribe: MethodHandler {
    static let method = "cache.subscribe"

    static func handle(_ r: Request) throws(ResponseError) -> Response {
        if r.params.contains("cache") {
            let name = try r.params.cacheName()
            r.server.events.subscribe(name)
            return .result(["subscribed": .string(name)])
        }
        r.server.events.subscribeAll()
        return .result(["subscribed": "*"])
    }
}
