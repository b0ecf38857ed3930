import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// `schema.remove`: deletes every version of a type; stored objects stay readable as plain maps.
enum SchemaRemove: MethodDefinition {
    static let method = "schema.remove"

    struct Params: ParamsObject {
        static let members = ["type"]
        static let requiredMembers = ["type"]
        let type: String
        init(_ p: ParamsReader) throws(ResponseError) { type = try p.require("type", as: String.self) }
    }

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        let removed = try r.server.mappingStoreErrors { () throws(StoreError) in try r.server.store.removeSchema(p.type) }
        return .afterCommit(Result(removed: removed))
    }

    struct Result: MethodResult {
        /// How many versions were deleted.
        let removed: Int
        var json: JSON { ["removed": .int(removed)] }
    }
}
