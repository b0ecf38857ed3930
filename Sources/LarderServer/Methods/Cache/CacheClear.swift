import LarderCore
import LarderRPC

/// `cache.clear`: empties a tier (memory, disk, or all) of a cache or one of its groups.
enum CacheClear: MethodHandler {
    static let method = "cache.clear"

    static func handle(_ r: Request) throws(ResponseError) -> Response {
        let tierName = try r.params.optional("tier", as: String.self) ?? "all"
        guard let tier = CacheEvent.Tier(rawValue: tierName) else {
            throw .invalidParams("\(r.params.path).tier must be \"memory\", \"disk\" or \"all\", not \"\(tierName)\"")
        }
        let group = try r.params.optional("group", as: String.self)
        let cache = try r.server.existingCache(r)
        let removed = try r.server.core { () throws(StoreError) in try cache.clear(group: group, tier: tier) }
        return .afterCommit(["removed": .int(removed)])
    }
}
