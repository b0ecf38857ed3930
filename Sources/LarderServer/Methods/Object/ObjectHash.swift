import LarderCore
import LarderJSON
import LarderRPC

/// `object.hash`: a stable hash of an object's type and value, or of an array
/// of objects' type and values (see CanonicalJSON), equal for equal objects.
enum ObjectHash: MethodDefinition {
    static let method = "object.hash"
    typealias Params = ObjectOperand.Params

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        r.server.answer(r, about: p.operand) { stored in
            Result(hash: CanonicalJSON.hash(of: stored))
        }
    }

    struct Result: MethodResult {
        let hash: String
        var json: JSON { ["hash": .string(hash), "algorithm": "fnv1a64-canonical-json"] }
    }
}
