import LarderCore
import LarderJSON
import LarderRPC

/// `object.equals {a, b}`: whether two objects (keys or `{type, value}`) have the same type and value.
enum ObjectEquals: MethodHandler {
    static let method = "object.equals"
    static let requiredParams = ["a", "b"]

    static func handle(_ r: Request) throws(ResponseError) -> Response {
        let a = try ObjectOperand.member("a", of: r.params)
        let b = try ObjectOperand.member("b", of: r.params)
        let server = r.server
        let reply = r.reply
        // Either side may need the client's migrations first: resolve a, then b.
        server.resolve(a) { first in
            server.resolve(b) { second in
                server.finishAfterCommit(reply, first.flatMap { x in second.map { y in
                    let equal = x.type == y.type && CanonicalJSON.canonical(x.plainValue) == CanonicalJSON.canonical(y.plainValue)
                    return ["equal": .bool(equal)]
                } })
            }
        }
        return .deferred
    }
}
