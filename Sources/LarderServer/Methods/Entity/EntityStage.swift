import LarderCore
import LarderJSON
import LarderRPC

/// `entity.stage`: checks records and adds them to the batch this server
/// process accumulates until `entity.apply` or `entity.discard`.
enum EntityStage: MethodHandler {
    static let method = "entity.stage"
    static let requiredParams = ["entity", "records"]

    static func handle(_ r: Request) throws(ResponseError) -> Response {
        let entity = try r.params.entityName()
        let records = try r.params.entityRecords()
        let store = r.server.store
        let pending = try r.server.core { () throws(StoreError) in try store.stage(records, entity: entity) }
        return .result(["staged": .int(records.count), "pending": .int(pending)])
    }
}
