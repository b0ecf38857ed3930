import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// `cache.keys`: a group's keys in byte order, paged with an opaque cursor.
enum CacheKeys: MethodDefinition {
    static let method = "cache.keys"
    static let defaultLimit = 1000
    static let maxLimit = 100_000

    struct Params: ParamsObject {
        static let members = ["cache", "group", "prefix", "cursor", "limit"]
        let cache: String
        let group: String
        let prefix: String
        let cursor: String?
        let limit: Int

        init(_ p: ParamsReader) throws(ResponseError) {
            group = try p.group()
            prefix = try p.optional("prefix", as: String.self) ?? ""
            cursor = try p.optional("cursor", as: String.self)
            limit = try p.pageLimit(default: defaultLimit, max: maxLimit)
            cache = try p.cacheName()
        }
    }

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        guard let cache = try r.server.cache(p.cache, create: false) else { return .result(Result(keys: [], cursor: nil)) }
        // One more than asked tells whether another page exists.
        var keys = try r.server.mappingStoreErrors { () throws(StoreError) in
            try cache.keys(group: p.group, prefix: p.prefix, after: p.cursor, limit: p.limit + 1)
        }
        let more = keys.count > p.limit
        if more { keys.removeLast() }
        return .result(Result(keys: keys, cursor: more ? keys.last : nil))
    }

    struct Result: MethodResult {
        let keys: [String]
        /// Present when more keys follow: pass it back for the next page.
        let cursor: String?

        var json: JSON {
            var o: JSONObject = ["keys": .array(keys.map(JSON.string))]
            if let cursor { o.append("cursor", .string(cursor)) }
            return .object(o)
        }
    }
}
