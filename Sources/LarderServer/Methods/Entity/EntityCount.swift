import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// `entity.count`: how many records match `where` (all when absent).
enum EntityCount: MethodDefinition {
    static let method = "entity.count"

    struct Params: ParamsObject {
        static let members = ["entity", "where"]
        static let requiredMembers = ["entity"]
        let entity: String
        /// Checked against the entity's attributes by the core.
        let conditions: JSON?

        init(_ p: ParamsReader) throws(ResponseError) {
            entity = try p.entityName()
            conditions = p["where"]
        }
    }

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        let store = r.server.store
        return .result(Result(count: try r.server.mappingStoreErrors { () throws(StoreError) in try store.count(p.entity, where: p.conditions) }))
    }

    struct Result: MethodResult {
        let count: Int
        var json: JSON { ["count": .int(count)] }
    }
}
