import LarderJSON
import LarderRPC
import LarderStorage

/// `shutdown`: gives back the session's leases, commits everything and
/// answers null; afterwards only the `exit` notification is accepted.
enum Shutdown: MethodDefinition {
    static let method = "shutdown"
    typealias Params = NoParams
    typealias Result = PlainResult

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        r.server.lifecycle = .shutDown
        try r.server.mappingStoreErrors { () throws(StoreError) in try r.server.store.releaseHeldLocks() }
        return .afterCommit(PlainResult(json: .null))
    }
}
