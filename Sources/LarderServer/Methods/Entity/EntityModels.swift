import LarderCore
import LarderJSON
import LarderRPC

/// `entity.models`: every defined model with its entities, as defined (defaults filled in).
enum EntityModels: MethodHandler {
    static let method = "entity.models"

    static func handle(_ r: Request) throws(ResponseError) -> Response {
        let store = r.server.store
        let models = try r.server.core { () throws(StoreError) in try store.entityModels() }
        return .result(["models": .array(models.map(\.json))])
    }
}
