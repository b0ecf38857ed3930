import LarderCore
import LarderJSON
import LarderRPC

/// `cache.keys`: a group's keys in byte order, paged with an opaque cursor.
enum CacheKeys: MethodHandler {
    static let method = "cache.keys"
    static let defaultLimit = 1000
    static let maxLimit = 100_000

    static func handle(_ r: Request) throws(ResponseError) -> Response {
        let group = try r.params.group()
        let prefix = try r.params.optional("prefix", as: String.self) ?? ""
        let cursor = try r.params.optional("cursor", as: String.self)
        let limit = try r.params.optional("limit", as: Int.self) ?? defaultLimit
        guard limit > 0 && limit <= maxLimit else {
            throw .invalidParams("\(r.params.path).limit must be between 1 and \(maxLimit)")
        }
        guard let cache = try r.server.cache(r, create: false) else { return .result(["keys": []]) }
        // One more than asked tells whether another page exists.
        var keys = try r.server.core { () throws(StoreError) in
            try cache.keys(group: group, prefix: prefix, after: cursor, limit: limit + 1)
        }
        var result: JSONObject = [:]
        let more = keys.count > limit
        if more { keys.removeLast() }
        result.append("keys", .array(keys.map(JSON.string)))
        if more, let last = keys.last { result.append("cursor", .string(last)) }
        return .result(.object(result))
    }
}
