import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// `entity.getMany`: records by identifier, in the order asked; the
/// identifiers that have no record are listed apart.
enum EntityGetMany: MethodDefinition {
    static let method = "entity.getMany"

    struct Params: ParamsObject {
        static let members = ["entity", "ids", "include"]
        static let requiredMembers = ["entity", "ids"]
        let entity: String
        let ids: [JSON]
        let include: [String]

        init(_ p: ParamsReader) throws(ResponseError) {
            entity = try p.entityName()
            ids = try p.require("ids", as: [JSON].self)
            include = try p.includePaths()
        }
    }

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        let store = r.server.store
        let found = try r.server.mappingStoreErrors { () throws(StoreError) in try store.records(p.entity, ids: p.ids, include: p.include) }
        var result = Result()
        for (id, record) in zip(p.ids, found) {
            if let record { result.records.append(record) } else { result.missing.append(id) }
        }
        return .result(result)
    }

    struct Result: MethodResult {
        var records: [JSON] = []
        /// The identifiers asked for that have no record.
        var missing: [JSON] = []
        var json: JSON { ["records": .array(records), "missing": .array(missing)] }
    }
}
