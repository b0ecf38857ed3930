import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// `lock.renew`: extends a live lease, named by its token, to `ttl` seconds from now.
enum LockRenew: MethodDefinition {
    static let method = "lock.renew"

    struct Params: ParamsObject {
        static let members = ["name", "token", "ttl"]
        static let requiredMembers = ["name", "token", "ttl"]
        let name: String
        let token: Int64
        /// Milliseconds.
        let ttl: Int64

        init(_ p: ParamsReader) throws(ResponseError) {
            name = try p.lockName()!
            token = try p.lockToken()
            ttl = try p.seconds("ttl", max: LockRules.maxTTLSeconds, required: true)!
        }
    }

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        let expiresAt = try r.server.mappingStoreErrors { () throws(StoreError) in
            try r.server.store.renewLock(p.name, token: p.token, ttl: p.ttl)
        }
        return .afterCommit(Result(token: p.token, expiresAt: expiresAt))
    }

    struct Result: MethodResult {
        let token: Int64
        let expiresAt: Int64
        var json: JSON { ["token": .int(Int(token)), "expiresAt": .string(Timestamp.format(milliseconds: expiresAt))] }
    }
}
