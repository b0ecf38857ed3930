import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// `entity.render`: a record written with the model's names and RFC 3339
/// dates, checked and answered in the model's keys and date format, whole, as
/// `entity.get` would answer it once stored (JSONCache's
/// `JSONifiable.toJSONDictionary`). Nothing is read or written but the model.
enum EntityRender: MethodDefinition {
    static let method = "entity.render"

    struct Params: ParamsObject {
        static let members = ["entity", "record"]
        static let requiredMembers = ["entity", "record"]
        let entity: String
        let record: JSON

        init(_ p: ParamsReader) throws(ResponseError) {
            entity = try p.entityName()
            record = try p.require("record", as: JSON.self)
        }
    }

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        let store = r.server.store
        return .result(Result(record: try r.server.mappingStoreErrors { () throws(StoreError) in try store.render(p.record, entity: p.entity) }))
    }

    typealias Result = ConvertedRecord
}
