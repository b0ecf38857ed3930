import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// `cache.purgeExpired`: deletes the expired entries of a cache (or one group).
enum CachePurgeExpired: MethodDefinition {
    static let method = "cache.purgeExpired"

    struct Params: ParamsObject {
        static let members = ["cache", "group"]
        let cache: String
        /// Nil: every group.
        let group: String?

        init(_ p: ParamsReader) throws(ResponseError) {
            group = try p.optional("group", as: String.self)
            cache = try p.cacheName()
        }
    }

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        guard let cache = try r.server.cache(p.cache, create: false) else { return .result(Result(removed: 0)) }
        let removed = try r.server.mappingStoreErrors { () throws(StoreError) in try cache.purgeExpired(group: p.group) }
        return .afterCommit(Result(removed: removed))
    }

    typealias Result = CacheClear.Result
}
