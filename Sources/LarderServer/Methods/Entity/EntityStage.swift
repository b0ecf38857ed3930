import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// `entity.stage`: checks records and adds them to the batch this server
/// process accumulates until `entity.apply` or `entity.discard`.
enum EntityStage: MethodDefinition {
    static let method = "entity.stage"

    struct Params: ParamsObject {
        static let members = ["entity", "records"]
        static let requiredMembers = ["entity", "records"]
        let entity: String
        let records: [JSON]

        init(_ p: ParamsReader) throws(ResponseError) {
            entity = try p.entityName()
            records = try p.entityRecords()
        }
    }

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        let store = r.server.store
        let pending = try r.server.mappingStoreErrors { () throws(StoreError) in try store.stage(p.records, entity: p.entity) }
        return .result(Result(staged: p.records.count, pending: pending))
    }

    struct Result: MethodResult {
        /// Records staged by this call.
        let staged: Int
        /// Records in the batch now.
        let pending: Int
        var json: JSON { ["staged": .int(staged), "pending": .int(pending)] }
    }
}
