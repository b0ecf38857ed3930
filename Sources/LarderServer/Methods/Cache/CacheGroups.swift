import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// `cache.groups`: a cache's groups in byte order with their entry counts,
/// paged as `cache.keys` pages keys.
enum CacheGroups: MethodDefinition {
    static let method = "cache.groups"

    struct Params: ParamsObject {
        static let members = ["cache", "prefix", "cursor", "limit"]
        let cache: String
        let prefix: String
        let cursor: String?
        let limit: Int

        init(_ p: ParamsReader) throws(ResponseError) {
            prefix = try p.optional("prefix", as: String.self) ?? ""
            cursor = try p.optional("cursor", as: String.self)
            limit = try p.pageLimit(default: CacheKeys.defaultLimit, max: CacheKeys.maxLimit)
            cache = try p.cacheName()
        }
    }

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        guard let cache = try r.server.cache(p.cache, create: false) else { return .result(Result(groups: [], cursor: nil)) }
        // One more than asked tells whether another page exists.
        var groups = try r.server.mappingStoreErrors { () throws(StoreError) in
            try cache.groups(prefix: p.prefix, after: p.cursor, limit: p.limit + 1)
        }
        let more = groups.count > p.limit
        if more { groups.removeLast() }
        return .result(Result(groups: groups, cursor: more ? groups.last?.group : nil))
    }

    struct Result: MethodResult {
        let groups: [GroupCount]
        /// Present when more groups follow: pass it back for the next page.
        let cursor: String?

        var json: JSON {
            var o: JSONObject = ["groups": .array(groups.map { ["group": .string($0.group), "count": .int($0.count)] })]
            if let cursor { o.append("cursor", .string(cursor)) }
            return .object(o)
        }
    }
}
