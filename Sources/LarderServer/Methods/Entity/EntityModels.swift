import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// `entity.models`: every defined model with its entities, as defined (defaults filled in).
enum EntityModels: MethodDefinition {
    static let method = "entity.models"
    typealias Params = NoParams

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        let store = r.server.store
        return .result(Result(models: try r.server.mappingStoreErrors { () throws(StoreError) in try store.entityModels() }))
    }

    struct Result: MethodResult {
        let models: [EntityModel]
        var json: JSON { ["models": .array(models.map(\.json))] }
    }
}
