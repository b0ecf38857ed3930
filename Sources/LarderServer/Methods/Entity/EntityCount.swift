import LarderCore
import LarderJSON
import LarderRPC

/// `entity.count`: how many records match `where` (all when absent).
enum EntityCount: MethodHandler {
    static let method = "entity.count"
    static let requiredParams = ["entity"]

    static func handle(_ r: Request) throws(ResponseError) -> Response {
        let entity = try r.params.entityName()
        let conditions = r.params["where"]
        let store = r.server.store
        let n = try r.server.core { () throws(StoreError) in try store.count(entity, where: conditions) }
        return .result(["count": .int(n)])
    }
}
