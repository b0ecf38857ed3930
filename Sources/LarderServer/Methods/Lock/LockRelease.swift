import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// `lock.release`: gives back a lease, named by its token; waiters here and
/// elsewhere may then take the name.
enum LockRelease: MethodDefinition {
    static let method = "lock.release"

    struct Params: ParamsObject {
        static let members = ["name", "token"]
        static let requiredMembers = ["name", "token"]
        let name: String
        let token: Int64

        init(_ p: ParamsReader) throws(ResponseError) {
            name = try p.lockName()!
            token = try p.lockToken()
        }
    }

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        let released = try r.server.mappingStoreErrors { () throws(StoreError) in
            try r.server.store.releaseLock(p.name, token: p.token)
        }
        // This session's own waiters need not wait for the next look.
        if released { r.server.lockWaits.recheckSoon() }
        return .afterCommit(Result(released: released))
    }

    struct Result: MethodResult {
        let released: Bool
        var json: JSON { ["released": .bool(released)] }
    }
}
