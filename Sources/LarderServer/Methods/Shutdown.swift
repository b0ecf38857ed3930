import LarderRPC

/// `shutdown`: commits everything and answers null; afterwards only the
/// `exit` notification is accepted.
enum Shutdown: MethodHandler {
    static let method = "shutdown"

    static func handle(_ r: Request) throws(ResponseError) -> Response {
        r.server.lifecycle = .shutDown
        return .afterCommit(.null)
    }
}
