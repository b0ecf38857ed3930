import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// `lock.acquire`: takes the lease on a name for `ttl` seconds under a new
/// fencing token, or says who holds it until when; with `wait`, waits up to
/// that long for it without holding up other requests (`LockWaits`).
///
/// Requests without `wait` are answered from their bytes (DirectAnswers.swift).
enum LockAcquire: MethodDefinition {
    static let methodName: StaticString = "lock.acquire"
    static let method = methodName.description

    struct Params: ParamsObject {
        static let members = ["name", "ttl", "wait"]
        static let requiredMembers = ["name", "ttl"]
        let name: String
        /// Milliseconds.
        let ttl: Int64
        /// Milliseconds; 0 when absent.
        let wait: Int64

        init(_ p: ParamsReader) throws(ResponseError) {
            name = try p.lockName()!
            ttl = try p.seconds("ttl", max: LockRules.maxTTLSeconds, required: true)!
            wait = try p.seconds("wait", max: LockRules.maxWaitSeconds, required: false, zeroAllowed: true) ?? 0
        }
    }

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        let waits = r.server.lockWaits
        // Waiters for one name are served in the order they came: a later one does not try first.
        if p.wait > 0 && waits.hasWaiters(for: p.name) {
            waits.wait(r.reply, name: p.name, ttl: p.ttl, milliseconds: p.wait)
            return .deferred
        }
        let outcome = try r.server.mappingStoreErrors { () throws(StoreError) in try r.server.store.acquireLock(p.name, ttl: p.ttl) }
        if case .held = outcome, p.wait > 0 {
            waits.wait(r.reply, name: p.name, ttl: p.ttl, milliseconds: p.wait)
            return .deferred
        }
        return .afterCommit(Result(outcome))
    }

    struct Result: MethodResult {
        let outcome: LockAcquisition

        init(_ outcome: LockAcquisition) { self.outcome = outcome }

        func write(into w: inout JSONWriter) {
            switch outcome {
            case .acquired(let token, let expiresAt):
                w.writeASCII("{\"acquired\":true,\"token\":")
                w.writeInt(Int(token))
                w.writeASCII(",\"expiresAt\":")
                w.writeString(Timestamp.format(milliseconds: expiresAt))
            case .held(_, let expiresAt, let heldHere):
                w.writeASCII("{\"acquired\":false,\"holderExpiresAt\":")
                w.writeString(Timestamp.format(milliseconds: expiresAt))
                w.writeASCII(heldHere ? ",\"heldHere\":true" : ",\"heldHere\":false")
            }
            w.writeASCII("}")
        }

        var json: JSON {
            var w = JSONWriter(capacity: 96)
            write(into: &w)
            return .fragment(JSONFragment(validJSON: w.copiedBytes))
        }
    }
}
