import LarderCore
import LarderJSON
import LarderRPC

/// `cache.open`: creates a cache or changes its settings (evicting down to new limits).
enum CacheOpen: MethodHandler {
    static let method = "cache.open"
    static let requiredParams = ["cache"]

    static func handle(_ r: Request) throws(ResponseError) -> Response {
        let p = r.params
        guard p.contains("cache") else { throw .invalidParams("missing required parameter params.cache (string)") }
        let name = try p.cacheName()
        var change = CacheConfigChange()
        change.persistent = try p.optional("persistent", as: Bool.self)
        if let m = try p.optional("memory", as: Params.self) {
            change.memoryMaxCount = try m.limit("maxCount")
            change.memoryMaxBytes = try m.limit("maxBytes")
        }
        if let d = try p.optional("disk", as: Params.self) {
            change.diskMaxCount = try d.limit("maxCount")
            change.diskMaxBytes = try d.limit("maxBytes")
        }
        change.lifespan = try p.milliseconds("lifespan")
        change.returnsExpired = try p.optional("returnsExpired", as: Bool.self)
        let (cache, created) = try r.server.core { () throws(StoreError) in try r.server.store.open(name, change: change) }
        return .afterCommit(["cache": .string(name), "created": .bool(created), "config": cache.config.json])
    }
}
