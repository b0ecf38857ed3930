import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// `entity.upsert`: stages records in a batch of their own and applies it at
/// once; the process's staged batch is left alone.
enum EntityUpsert: MethodDefinition {
    static let method = "entity.upsert"

    struct Params: ParamsObject {
        static let members = ["entity", "records", "onMissing"]
        static let requiredMembers = ["entity", "records"]
        let entity: String
        let records: [JSON]
        let onMissing: MissingReferencePolicy

        init(_ p: ParamsReader) throws(ResponseError) {
            entity = try p.entityName()
            records = try p.entityRecords()
            onMissing = try p.missingReferencePolicy()
        }
    }

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        let store = r.server.store
        let counts = try r.server.mappingStoreErrors { () throws(StoreError) in try store.upsert(p.records, entity: p.entity, onMissing: p.onMissing) }
        return .afterCommit(Result(counts: counts))
    }

    typealias Result = ApplyResultJSON
}
