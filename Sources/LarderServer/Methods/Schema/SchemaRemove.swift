import LarderCore
import LarderRPC

/// `schema.remove`: deletes every version of a type; stored objects stay readable as plain maps.
enum SchemaRemove: MethodHandler {
    static let method = "schema.remove"
    static let requiredParams = ["type"]

    static func handle(_ r: Request) throws(ResponseError) -> Response {
        let type = try r.params.require("type", as: String.self)
        let removed = try r.server.core { () throws(StoreError) in try r.server.store.removeSchema(type) }
        return .afterCommit(["removed": .int(removed)])
    }
}
