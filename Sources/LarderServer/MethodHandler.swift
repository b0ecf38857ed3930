import LarderJSON
import LarderRPC

/// One protocol method: its name, what it requires, and how it is answered.
///
/// Each method lives in its own file as a type conforming to this protocol and
/// is listed once in `MethodTable.all`.
protocol MethodHandler: Sendable {
    /// The JSON-RPC method name.
    static var method: String { get }
    /// Parameters without which the method fails with -32602; checked against
    /// protocol/openrpc.json by a test.
    static var requiredParams: [String] { get }
    /// Test-only methods are refused unless the server runs with `--enable-test-methods`.
    static var isTestOnly: Bool { get }
    static func handle(_ request: Request) throws(ResponseError) -> Response
}

extension MethodHandler {
    static var requiredParams: [String] { [] }
    static var isTestOnly: Bool { false }
}

/// What a handler produced.
enum Response {
    /// Send this result now.
    case result(JSON)
    /// Send this result once the current transaction has committed (writes).
    case afterCommit(JSON)
    /// The handler kept the `Reply` and answers later.
    case deferred
}

/// A request as a handler sees it.
struct Request {
    let params: Params
    let reply: Reply
    unowned let server: Server
}
