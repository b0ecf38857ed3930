import LarderJSON
import LarderRPC

/// `debug.ask {method, params?}` (test only): sends a request to the client
/// and answers with the client's answer, `{result}` or `{error}`, so that
/// server-to-client requests can be tested before features use them.
enum DebugAsk: MethodDefinition {
    static let method = "debug.ask"
    static let isTestOnly = true

    struct Params: ParamsObject {
        static let members = ["method", "params"]
        static let requiredMembers = ["method"]
        let method: String
        /// Passed on as they are: they are the client's business.
        let params: JSON?

        init(_ p: ParamsReader) throws(ResponseError) {
            method = try p.require("method", as: String.self)
            params = p["params"]
        }
    }

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        let reply = r.reply
        r.server.connection.request(p.method, params: p.params) { answer in
            reply.succeed(Result(answer: answer).json)
        }
        return .deferred
    }

    struct Result: MethodResult {
        let answer: Swift.Result<JSON, ResponseError>

        var json: JSON {
            switch answer {
            case .success(let value): return ["result": value]
            case .failure(let error): return ["error": error.json]
            }
        }
    }
}
