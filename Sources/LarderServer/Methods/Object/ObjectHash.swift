import LarderCore
import LarderJSON
import LarderRPC

/// `object.hash`: a stable hash of an object's type and value (see CanonicalJSON), equal for equal objects.
enum ObjectHash: MethodHandler {
    static let method = "object.hash"

    static func handle(_ r: Request) throws(ResponseError) -> Response {
        r.server.answer(r, about: try ObjectOperand.from(r.params)) { stored in
            ["hash": .string(CanonicalJSON.hash(type: stored.type, value: stored.plainValue)), "algorithm": "fnv1a64-canonical-json"]
        }
    }
}
