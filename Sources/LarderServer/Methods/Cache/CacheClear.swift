import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// `cache.clear`: empties a tier (memory, disk, or all) of a cache or one of its groups.
enum CacheClear: MethodDefinition {
    static let method = "cache.clear"

    struct Params: ParamsObject {
        static let members = ["cache", "group", "tier"]
        let cache: String
        /// Nil: every group.
        let group: String?
        let tier: CacheEvent.Tier

        init(_ p: ParamsReader) throws(ResponseError) {
            let tierName = try p.optional("tier", as: String.self) ?? "all"
            guard let tier = CacheEvent.Tier(rawValue: tierName) else {
                throw .invalidParams("\(p.path).tier must be \"memory\", \"disk\" or \"all\", not \"\(tierName.echoed)\"")
            }
            self.tier = tier
            group = try p.optional("group", as: String.self)
            cache = try p.cacheName()
        }
    }

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        let cache = try r.server.existingCache(p.cache)
        let removed = try r.server.mappingStoreErrors { () throws(StoreError) in try cache.clear(group: p.group, tier: p.tier) }
        return .afterCommit(Result(removed: removed))
    }

    struct Result: MethodResult {
        /// How many entries were removed.
        let removed: Int
        var json: JSON { ["removed": .int(removed)] }
    }
}
