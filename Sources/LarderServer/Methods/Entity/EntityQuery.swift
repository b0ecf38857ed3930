import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// `entity.query`: records matching every condition in `where`, ordered and
/// paged; `nextOffset` is present when more records follow.
enum EntityQuery: MethodDefinition {
    static let method = "entity.query"
    static let defaultLimit = 1000
    static let maxLimit = 100_000

    struct Params: ParamsObject {
        static let members = ["entity", "where", "orderBy", "limit", "offset", "include"]
        static let requiredMembers = ["entity"]
        let entity: String
        /// Checked against the entity's attributes by the core.
        let conditions: JSON?
        let orderBy: [String]
        let limit: Int
        let offset: Int
        let include: [String]

        init(_ p: ParamsReader) throws(ResponseError) {
            entity = try p.entityName()
            limit = try p.pageLimit(default: defaultLimit, max: maxLimit)
            offset = try p.optional("offset", as: Int.self) ?? 0
            guard offset >= 0 else { throw .invalidParams("\(p.path).offset must not be negative") }
            if case .string(let key)? = p["orderBy"] { orderBy = [key] } else { orderBy = try p.optional("orderBy", as: [String].self) ?? [] }
            include = try p.includePaths()
            conditions = p["where"]
        }
    }

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        // One more than asked tells whether another page follows.
        let query = RecordQuery(conditions: p.conditions, orderBy: p.orderBy, limit: p.limit + 1, offset: p.offset)
        let store = r.server.store
        var records = try r.server.mappingStoreErrors { () throws(StoreError) in try store.query(p.entity, query, include: p.include) }
        let more = records.count > p.limit
        if more { records.removeLast() }
        return .result(Result(records: records, nextOffset: more ? p.offset + p.limit : nil))
    }

    struct Result: MethodResult {
        let records: [JSON]
        /// Present when more records follow: the `offset` of the next page.
        let nextOffset: Int?

        var json: JSON {
            var o: JSONObject = ["records": .array(records)]
            if let nextOffset { o.append("nextOffset", .int(nextOffset)) }
            return .object(o)
        }
    }
}
