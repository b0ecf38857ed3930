import LarderCore
import LarderJSON
import LarderRPC

/// `entity.delete`: deletes a record, applying each relationship's delete
/// rule (nullify, cascade, or deny: -31043), all or nothing.
enum EntityDelete: MethodHandler {
    static let method = "entity.delete"
    static let requiredParams = ["entity", "id"]

    static func handle(_ r: Request) throws(ResponseError) -> Response {
        let entity = try r.params.entityName()
        let id = try r.params.require("id", as: JSON.self)
        let store = r.server.store
        let result = try r.server.core { () throws(StoreError) in try store.deleteRecord(entity, id: id) }
        return .afterCommit(["deleted": .int(result.deleted), "nullified": .int(result.nullified)])
    }
}
