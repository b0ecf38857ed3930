import LarderCore
import LarderJSON
import LarderRPC

/// `entity.query`: records matching every condition in `where`, ordered and
/// paged; `nextOffset` is present when more records follow.
enum EntityQueryMethod: MethodHandler {
    static let method = "entity.query"
    static let requiredParams = ["entity"]
    static let defaultLimit = 1000
    static let maxLimit = 100_000

    static func handle(_ r: Request) throws(ResponseError) -> Response {
        let p = r.params
        let entity = try p.entityName()
        let limit = try p.optional("limit", as: Int.self) ?? defaultLimit
        guard limit > 0 && limit <= maxLimit else { throw .invalidParams("\(p.path).limit must be between 1 and \(maxLimit)") }
        let offset = try p.optional("offset", as: Int.self) ?? 0
        guard offset >= 0 else { throw .invalidParams("\(p.path).offset must not be negative") }
        let orderBy: [String]
        if case .string(let key)? = p["orderBy"] { orderBy = [key] } else { orderBy = try p.optional("orderBy", as: [String].self) ?? [] }
        let include = try p.includePaths()
        // One more than asked tells whether another page follows.
        let query = EntityQuery(conditions: p["where"], orderBy: orderBy, limit: limit + 1, offset: offset)
        let store = r.server.store
        var records = try r.server.core { () throws(StoreError) in try store.query(entity, query, include: include) }
        var result = JSONObject()
        let more = records.count > limit
        if more { records.removeLast() }
        result.append("records", .array(records))
        if more { result.append("nextOffset", .int(offset + limit)) }
        return .result(.object(result))
    }
}
