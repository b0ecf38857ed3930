import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// `entity.delete`: deletes a record, applying each relationship's delete
/// rule (nullify, cascade, or deny: -31043), all or nothing.
enum EntityDelete: MethodDefinition {
    static let method = "entity.delete"

    struct Params: ParamsObject {
        static let members = ["entity", "id"]
        static let requiredMembers = ["entity", "id"]
        let entity: String
        let id: JSON

        init(_ p: ParamsReader) throws(ResponseError) {
            entity = try p.entityName()
            id = try p.require("id", as: JSON.self)
        }
    }

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        let store = r.server.store
        let result = try r.server.mappingStoreErrors { () throws(StoreError) in try store.deleteRecord(p.entity, id: p.id) }
        return .afterCommit(Result(deleted: result.deleted, nullified: result.nullified))
    }

    struct Result: MethodResult {
        /// Records deleted: this one and those its cascade rules reached.
        let deleted: Int
        /// References set to null by nullify rules.
        let nullified: Int
        var json: JSON { ["deleted": .int(deleted), "nullified": .int(nullified)] }
    }
}
