import LarderCore
import LarderJSON
import LarderRPC

/// `object.equals {a, b}`: whether two objects (keys or `{type, value}`) have
/// the same type and value; two arrays of objects, the same type and values.
enum ObjectEquals: MethodDefinition {
    static let method = "object.equals"

    struct Params: ParamsObject {
        static let members = ["a", "b", "cache", "group"]
        static let requiredMembers = ["a", "b"]
        let a: ObjectOperand
        let b: ObjectOperand

        init(_ p: ParamsReader) throws(ResponseError) {
            a = try ObjectOperand.member("a", of: p)
            b = try ObjectOperand.member("b", of: p)
        }
    }

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        let server = r.server
        let reply = r.reply
        // Either side may need the client's migrations first: resolve a, then b.
        server.resolve(p.a) { first in
            server.resolve(p.b) { second in
                server.gate.answer(reply, first.flatMap { x in second.map { y in
                    // An array of one object is not that object.
                    Result(equal: x.type == y.type && x.isArray == y.isArray
                        && CanonicalJSON.canonical(x.comparableValue) == CanonicalJSON.canonical(y.comparableValue)).json
                } }, after: .commit)
            }
        }
        return .deferred
    }

    struct Result: MethodResult {
        let equal: Bool
        var json: JSON { ["equal": .bool(equal)] }
    }
}
