import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// `entity.get`: one record in its model's casing and date format, with the
/// relationships named by `include` nested.
enum EntityGet: MethodDefinition {
    static let method = "entity.get"
    typealias Params = RecordParams

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        let store = r.server.store
        return .result(Result(record: try r.server.mappingStoreErrors { () throws(StoreError) in try store.record(p.entity, id: p.id, include: p.include) }))
    }

    struct Result: MethodResult {
        /// Nil: no such record.
        let record: JSON?
        var json: JSON {
            guard let record else { return ["found": false] }
            return ["found": true, "record": record]
        }
    }
}
