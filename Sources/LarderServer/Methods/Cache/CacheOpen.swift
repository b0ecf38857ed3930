import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// `cache.open`: creates a cache or changes its settings (evicting down to new limits).
enum CacheOpen: MethodDefinition {
    static let method = "cache.open"

    struct Params: ParamsObject {
        static let members = ["cache", "kind", "persistent", "memory", "disk", "lifespan", "returnsExpired", "purgeExpiredAfter", "persistsAcrossVersions", "encrypted", "fetch"]
        static let requiredMembers = ["cache"]
        let cache: String
        let change: CacheConfigChange

        init(_ p: ParamsReader) throws(ResponseError) {
            guard p.contains("cache") else { throw .invalidParams("missing required parameter \(p.path).cache (string)") }
            cache = try p.cacheName()
            var change = CacheConfigChange()
            change.persistent = try p.optional("persistent", as: Bool.self)
            if let m = try p.optional("memory", as: Limits.self) {
                change.memoryMaxCount = m.maxCount
                change.memoryMaxBytes = m.maxBytes
            }
            if let d = try p.optional("disk", as: Limits.self) {
                change.diskMaxCount = d.maxCount
                change.diskMaxBytes = d.maxBytes
            }
            change.lifespan = try p.milliseconds("lifespan")
            change.returnsExpired = try p.optional("returnsExpired", as: Bool.self)
            change.persistsAcrossVersions = try p.optional("persistsAcrossVersions", as: Bool.self)
            change.encrypted = try p.optional("encrypted", as: Bool.self)
            // null is a value here: back to the default.
            if p.object["purgeExpiredAfter"] != nil { change.purgeExpiredAfter = .some(try p.milliseconds("purgeExpiredAfter")) }
            if let kind = try p.optional("kind", as: String.self) {
                guard let k = CacheConfig.Kind(rawValue: kind) else {
                    let meant = NearestName.suggestion(for: kind, among: ["cache", "store"]).map { " (did you mean \($0)?)" } ?? ""
                    throw .invalidParams("\(p.path).kind must be \"cache\" (purgeable) or \"store\" (durable), not \(kind.echoed)\(meant)")
                }
                change.kind = k
            }
            if let fetch = try p.optional("fetch", as: FetchParams.self) { change.fetch = fetch.change }
            self.change = change
        }
    }

    /// `memory` or `disk`: the limits to change; an absent one stays as it is.
    struct Limits: ParamsObject {
        static let members = ["maxCount", "maxBytes"]
        let maxCount: Int?
        let maxBytes: Int?

        init(_ p: ParamsReader) throws(ResponseError) {
            maxCount = try p.limit("maxCount")
            maxBytes = try p.limit("maxBytes")
        }
    }

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        let store = r.server.store
        let (cache, created, budget) = try r.server.mappingStoreErrors { () throws(StoreError) in
            let (cache, created) = try store.open(p.cache, change: p.change)
            return (cache, created, try store.budgetStatus())
        }
        return .afterCommit(Result(cache: p.cache, created: created, config: cache.config, storeBudget: budget))
    }

    struct Result: MethodResult {
        let cache: String
        let created: Bool
        /// The settings now in force.
        let config: CacheConfig
        /// With `--max-store-bytes`: the store's budget, and what all caches hold against it.
        let storeBudget: Store.BudgetStatus?
        var json: JSON {
            var o: JSONObject = ["cache": .string(cache), "created": .bool(created), "config": config.json]
            if let storeBudget { o.append("storeBudget", storeBudget.json) }
            return .object(o)
        }
    }
}
