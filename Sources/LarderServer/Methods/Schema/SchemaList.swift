import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// `schema.list`: every registered type with its versions.
enum SchemaList: MethodDefinition {
    static let method = "schema.list"
    typealias Params = NoParams

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        let store = r.server.store
        let types = try r.server.mappingStoreErrors { () throws(StoreError) -> [TypeSummary] in
            var result: [TypeSummary] = []
            for t in try store.schemaTypes() {
                let versions = try store.versions(of: t)
                result.append(TypeSummary(type: t, versions: versions.map(\.version.text), parent: versions.last?.parent))
            }
            return result
        }
        return .result(Result(types: types))
    }

    struct Result: MethodResult {
        let types: [TypeSummary]
        var json: JSON { ["types": .array(types.map(\.json))] }
    }

    struct TypeSummary {
        let type: String
        /// Oldest first.
        let versions: [String]
        /// The newest version's parent type, if it has one.
        let parent: String?

        var json: JSON {
            var o: JSONObject = ["type": .string(type), "versions": .array(versions.map(JSON.string)),
                                 "newest": .string(versions.last ?? "")]
            if let parent { o["parent"] = .string(parent) }
            return .object(o)
        }
    }
}
