import LarderCore
import LarderRPC

/// `schema.extend`: adds a category's fields (HMCache's category properties) to
/// the newest version of a type, without a version bump. Extension fields are optional.
enum SchemaExtend: MethodHandler {
    static let method = "schema.extend"
    static let requiredParams = ["type", "category", "fields"]

    static func handle(_ r: Request) throws(ResponseError) -> Response {
        let type = try r.params.require("type", as: String.self)
        let category = try r.params.require("category", as: String.self)
        guard !category.isEmpty else { throw .invalidParams("\(r.params.path).category must not be empty") }
        let fields = try r.params.require("fields", as: Params.self)
        let store = r.server.store
        let schema = try r.server.core { () throws(StoreError) in
            try store.extend(type: type, category: category, fields: try FieldDefinition.list(from: .object(fields.object), at: "fields"))
        }
        return .afterCommit(["schema": schema.json])
    }
}
