import LarderCore
import LarderJSON
import LarderRPC

/// `entity.getMany`: records by identifier, in the order asked; the
/// identifiers that have no record are listed apart.
enum EntityGetMany: MethodHandler {
    static let method = "entity.getMany"
    static let requiredParams = ["entity", "ids"]

    static func handle(_ r: Request) throws(ResponseError) -> Response {
        let entity = try r.params.entityName()
        let ids = try r.params.require("ids", as: [JSON].self)
        let include = try r.params.includePaths()
        let store = r.server.store
        let found = try r.server.core { () throws(StoreError) in try store.records(entity, ids: ids, include: include) }
        var records: [JSON] = [], missing: [JSON] = []
        for (id, record) in zip(ids, found) {
            if let record { records.append(record) } else { missing.append(id) }
        }
        return .result(["records": .array(records), "missing": .array(missing)])
    }
}
