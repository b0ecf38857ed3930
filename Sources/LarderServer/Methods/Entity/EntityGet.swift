import LarderCore
import LarderJSON
import LarderRPC

/// `entity.get`: one record in its model's casing and date format, with the
/// relationships named by `include` nested.
enum EntityGet: MethodHandler {
    static let method = "entity.get"
    static let requiredParams = ["entity", "id"]

    static func handle(_ r: Request) throws(ResponseError) -> Response {
        let entity = try r.params.entityName()
        let id = try r.params.require("id", as: JSON.self)
        let include = try r.params.includePaths()
        let store = r.server.store
        let record = try r.server.core { () throws(StoreError) in try store.record(entity, id: id, include: include) }
        guard let record else { return .result(["found": false]) }
        return .result(["found": true, "record": record])
    }
}
