import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// `lock.list`: the live leases, by name in byte order, optionally those whose names begin with a prefix.
enum LockList: MethodDefinition {
    static let method = "lock.list"

    struct Params: ParamsObject {
        static let members = ["prefix"]
        let prefix: String

        init(_ p: ParamsReader) throws(ResponseError) {
            prefix = try p.lockName("prefix", required: false) ?? ""
        }
    }

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        let leases = try r.server.mappingStoreErrors { () throws(StoreError) in try r.server.store.leases(prefix: p.prefix) }
        return .result(Result(leases: leases))
    }

    struct Result: MethodResult {
        let leases: [Lease]
        var json: JSON {
            ["locks": .array(leases.map { lease in
                ["name": .string(lease.name), "token": .int(Int(lease.token)),
                 "expiresAt": .string(Timestamp.format(milliseconds: lease.expiresAt)), "heldHere": .bool(lease.heldHere)]
            })]
        }
    }
}
