import LarderJSON
import LarderRPC

/// `debug.ask {method, params?}` (test only): sends a request to the client
/// and answers with the client's answer, `{result}` or `{error}`, so that
/// server-to-client requests can be tested before features use them.
enum DebugAsk: MethodHandler {
    static let method = "debug.ask"
    static let requiredParams = ["method"]
    static let isTestOnly = true

    static func handle(_ r: Request) throws(ResponseError) -> Response {
        let method = try r.params.require("method", as: String.self)
        let params = r.params["params"]
        let reply = r.reply
        r.server.connection.request(method, params: params) { result in
            switch result {
            case .success(let value): reply.succeed(["result": value])
            case .failure(let error): reply.succeed(["error": error.json])
            }
        }
        return .deferred
    }
}
