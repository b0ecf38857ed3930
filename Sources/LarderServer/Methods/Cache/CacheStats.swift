import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// `cache.stats`: per tier, what a cache holds and how it has been used since the process started.
enum CacheStats: MethodDefinition {
    static let method = "cache.stats"

    struct Params: ParamsObject {
        static let members = ["cache"]
        let cache: String
        init(_ p: ParamsReader) throws(ResponseError) { cache = try p.cacheName() }
    }

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        let cache = try r.server.existingCache(p.cache)
        let disk = cache.diskTotals
        let budget = try r.server.mappingStoreErrors { () throws(StoreError) in try r.server.store.budgetStatus() }
        return .result(Result(
            cache: cache.name,
            memory: Tier(count: cache.memoryCount, bytes: cache.memoryBytes, usage: cache.stats.memory),
            disk: Tier(count: disk.count, bytes: disk.bytes, usage: cache.stats.disk),
            storeBudget: budget))
    }

    struct Result: MethodResult {
        let cache: String
        let memory: Tier
        let disk: Tier
        /// With `--max-store-bytes`: the budget, and what all caches hold against it.
        let storeBudget: Store.BudgetStatus?
        var json: JSON {
            var o: JSONObject = ["cache": .string(cache), "memory": memory.json, "disk": disk.json]
            if let storeBudget { o.append("storeBudget", storeBudget.json) }
            return .object(o)
        }
    }

    /// What one tier holds now, and its use since the process started.
    struct Tier {
        let count: Int
        let bytes: Int
        let usage: CacheUsage.Tier

        var json: JSON {
            ["count": .int(count), "bytes": .int(bytes),
             "hits": .int(usage.hits), "misses": .int(usage.misses), "evictions": .int(usage.evictions)]
        }
    }
}

extension Store.BudgetStatus {
    /// As `cache.stats` and `cache.open` report it.
    var json: JSON { ["maxBytes": .int(maxBytes), "bytes": .int(bytes), "exceeded": .bool(exceeded)] }
}
