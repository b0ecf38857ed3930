import LarderCore
import LarderJSON
import LarderRPC

/// `entity.upsert`: stages records in a batch of their own and applies it at
/// once; the process's staged batch is left alone.
enum EntityUpsert: MethodHandler {
    static let method = "entity.upsert"
    static let requiredParams = ["entity", "records"]

    static func handle(_ r: Request) throws(ResponseError) -> Response {
        let entity = try r.params.entityName()
        let records = try r.params.entityRecords()
        let policy = try r.params.missingReferencePolicy()
        let store = r.server.store
        let result = try r.server.core { () throws(StoreError) in try store.upsert(records, entity: entity, onMissing: policy) }
        return .afterCommit(result.json)
    }
}
