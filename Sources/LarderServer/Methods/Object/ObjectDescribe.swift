import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// `object.describe`: HMCache's JSON description of a stored object (`{key}`)
/// or of a value (`{type, value}`); of an array of objects, an array of descriptions.
enum ObjectDescribe: MethodDefinition {
    static let method = "object.describe"
    typealias Params = ObjectOperand.Params

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        let server = r.server
        return server.answer(r, about: p.operand) { (stored) throws(ResponseError) in
            Result(description: try server.mappingStoreErrors { () throws(StoreError) in try ObjectDescription(store: server.store).describe(stored) })
        }
    }

    struct Result: MethodResult {
        let description: JSON
        var json: JSON { ["description": description] }
    }
}
