import LarderCore
import LarderRPC

/// `cache.purgeExpired`: deletes the expired entries of a cache (or one group).
enum CachePurgeExpired: MethodHandler {
    static let method = "cache.purgeExpired"

    static func handle(_ r: Request) throws(ResponseError) -> Response {
        let group = try r.params.optional("group", as: String.self)
        guard let cache = try r.server.cache(r, create: false) else { return .result(["removed": 0]) }
        let removed = try r.server.core { () throws(StoreError) in try cache.purgeExpired(group: group) }
        return .afterCommit(["removed": .int(removed)])
    }
}
