import LarderCore
import LarderJSON
import LarderRPC

/// `schema.register`: keeps one version of a type's definition; the same version
/// again with another definition is refused (-31020).
enum SchemaRegister: MethodHandler {
    static let method = "schema.register"
    static let requiredParams = ["type", "version", "fields"]

    static func handle(_ r: Request) throws(ResponseError) -> Response {
        let type = try r.params.require("type", as: String.self)
        let version = try r.params.require("version", as: String.self)
        _ = try r.params.require("fields", as: Params.self)
        let server = r.server
        let schema = try server.core { () throws(StoreError) in
            try TypeSchema(type: type, version: version, definition: .object(r.params.object))
        }
        let created = try server.core { () throws(StoreError) in try server.store.register(schema) }
        return .afterCommit(["type": .string(type), "version": .string(schema.version.text), "created": .bool(created)])
    }
}
