import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// `entity.parse`: a record in the model's keys and date format (as a
/// backend sends it), checked as `entity.stage` checks it and answered with
/// the model's names and RFC 3339 dates, the members it has. The reverse of
/// `entity.render`. Nothing is read or written but the model.
enum EntityParse: MethodDefinition {
    static let method = "entity.parse"

    struct Params: ParamsObject {
        static let members = ["entity", "json"]
        static let requiredMembers = ["entity", "json"]
        let entity: String
        let json: JSON

        init(_ p: ParamsReader) throws(ResponseError) {
            entity = try p.entityName()
            json = try p.require("json", as: JSON.self)
        }
    }

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        let store = r.server.store
        return .result(Result(record: try r.server.mappingStoreErrors { () throws(StoreError) in try store.parse(p.json, entity: p.entity) }))
    }

    typealias Result = ConvertedRecord
}
