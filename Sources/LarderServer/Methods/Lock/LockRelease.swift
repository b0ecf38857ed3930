import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// `lock.release`: gives back a lease, named by its token; waiters here and
/// elsewhere may then take the name. Answered from its bytes where its
/// params are plain (DirectAnswers.swift).
enum LockRelease: MethodDefinition {
    static let methodName: StaticString = "lock.release"
    static let method = methodName.description

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
        .afterCommit(try r.server.mappingStoreErrors { () throws(StoreError) in try release(p.name, token: p.token, on: r.server) })
    }

    /// Gives the lease back; both paths (DirectAnswers.swift) end here.
    static func release(_ name: String, token: Int64, on server: Server) throws(StoreError) -> Result {
        let released = try server.store.releaseLock(name, token: token)
        // This session's own waiters need not wait for the next look.
        if released { server.lockWaits.recheckSoon() }
        return Result(released: released)
    }

    struct Result: MethodResult {
        let released: Bool

        func write(into w: inout JSONWriter) {
            w.writeASCII(released ? "{\"released\":true}" : "{\"released\":false}")
        }

        var json: JSON {
            var w = JSONWriter(capacity: 24)
            write(into: &w)
            return .fragment(JSONFragment(validJSON: w.copiedBytes))
        }
    }
}
