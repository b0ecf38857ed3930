import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// `schema.register`: keeps one version of a type's definition; the same version
/// again with another definition is refused (-31020).
enum SchemaRegister: MethodDefinition {
    static let method = "schema.register"

    struct Params: ParamsObject {
        static let members = ["type", "version", "fields", "parent", "extensions", "migrations"]
        static let requiredMembers = ["type", "version", "fields"]
        let schema: TypeSchema

        init(_ p: ParamsReader) throws(ResponseError) {
            let type = try p.require("type", as: String.self)
            let version = try p.require("version", as: String.self)
            _ = try p.require("fields", as: ParamsReader.self)
            schema = try Server.mappingStoreErrors { () throws(StoreError) in try TypeSchema(type: type, version: version, definition: .object(p.object)) }
        }
    }

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        let created = try r.server.mappingStoreErrors { () throws(StoreError) in try r.server.store.register(p.schema) }
        return .afterCommit(Result(type: p.schema.type, version: p.schema.version.text, created: created))
    }

    struct Result: MethodResult {
        let type: String
        let version: String
        /// False when this very definition was already registered.
        let created: Bool
        var json: JSON { ["type": .string(type), "version": .string(version), "created": .bool(created)] }
    }
}
