import LarderCore
import LarderJSON
import LarderRPC

/// `object.describe`: HMCache's JSON description of a stored object (`{key}`) or of a value (`{type, value}`).
enum ObjectDescribe: MethodHandler {
    static let method = "object.describe"

    static func handle(_ r: Request) throws(ResponseError) -> Response {
        let server = r.server
        return server.answer(r, about: try ObjectOperand.from(r.params)) { (stored) throws(ResponseError) in
            ["description": try server.core { () throws(StoreError) in try ObjectDescription(store: server.store).describe(stored) }]
        }
    }
}
