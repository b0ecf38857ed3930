import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// `schema.extend`: adds a category's fields (HMCache's category properties) to
/// the newest version of a type, without a version bump. Extension fields are
/// optional; without a category name (or with an empty one) they belong to the
/// unnamed category.
enum SchemaExtend: MethodDefinition {
    static let method = "schema.extend"

    struct Params: ParamsObject {
        static let members = ["type", "category", "fields"]
        static let requiredMembers = ["type", "fields"]
        let type: String
        /// Empty for HMCache's `registerPropertyName:` without a category name.
        let category: String
        let fields: [FieldDefinition]

        init(_ p: ParamsReader) throws(ResponseError) {
            type = try p.require("type", as: String.self)
            category = try p.optional("category", as: String.self) ?? ""
            let fields = try p.require("fields", as: ParamsReader.self)
            self.fields = try Server.mappingStoreErrors { () throws(StoreError) in try FieldDefinition.list(from: .object(fields.object), at: "fields") }
        }
    }

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        let store = r.server.store
        let schema = try r.server.mappingStoreErrors { () throws(StoreError) in try store.extend(type: p.type, category: p.category, fields: p.fields) }
        return .afterCommit(Result(schema: schema))
    }

    struct Result: MethodResult {
        /// The newest version's definition, with the category added.
        let schema: TypeSchema
        var json: JSON { ["schema": schema.json] }
    }
}
