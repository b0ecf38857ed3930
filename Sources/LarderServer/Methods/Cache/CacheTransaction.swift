import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// `cache.transaction`: comparisons, then one list of operations or the
/// other, all at once (SPEC 6.15, 9.55); answered once it is committed.
enum CacheTransaction: MethodDefinition {
    static let method = "cache.transaction"
    /// Comparisons and operations of one transaction, together.
    static let maxParts = 1000

    struct Params: ParamsObject {
        static let members = ["compare", "then", "else"]
        let transaction: EntryTransaction

        init(_ p: ParamsReader) throws(ResponseError) {
            // Counted before any element is read: a list too long costs nothing more.
            let parts = ["compare", "then", "else"].reduce(0) { $0 + (p[$1]?.arrayValue?.count ?? 0) }
            guard parts <= CacheTransaction.maxParts else {
                throw .invalidParams("\(p.path) has \(parts) comparisons and operations; a transaction takes at most \(CacheTransaction.maxParts)")
            }
            transaction = EntryTransaction(compare: try p.optional("compare", as: [Comparison].self)?.map(\.comparison) ?? [],
                                           then: try p.optional("then", as: [Operation].self)?.map(\.operation) ?? [],
                                           otherwise: try p.optional("else", as: [Operation].self)?.map(\.operation) ?? [])
        }
    }

    /// One of `compare`: an entry and exactly one test of it.
    struct Comparison: ParamsObject {
        static let members = ["cache", "group", "key", "revision", "absent", "present", "value"]
        static let requiredMembers = ["key"]
        static let tests = ["revision", "absent", "present", "value"]
        let comparison: EntryTransaction.Comparison

        init(_ p: ParamsReader) throws(ResponseError) {
            let target = EntryTransaction.Target(cache: try p.cacheName(), key: try p.entryKey())
            // `value` may be null, a value like any other: present, not absent.
            let given = Self.tests.filter { p.object[$0] != nil }
            guard given.count == 1 else {
                throw .invalidParams(given.isEmpty ? "\(p.path) needs one test: revision, absent, present or value"
                                                   : "\(p.path) has \(given.count) tests (\(given.joined(separator: ", "))); give one")
            }
            let test: EntryTransaction.Test
            switch given[0] {
            case "revision":
                test = .revision(Int64(try p.require("revision", as: Int.self)))
            case "absent":
                guard try p.require("absent", as: Bool.self) else {
                    throw .invalidParams("\(p.path).absent must be true (for an entry that must exist, present: true)")
                }
                test = .absent
            case "present":
                guard try p.require("present", as: Bool.self) else {
                    throw .invalidParams("\(p.path).present must be true (for an entry that must not exist, absent: true)")
                }
                test = .present
            default:
                test = .value(p.object["value"]!)
            }
            comparison = EntryTransaction.Comparison(target, test)
        }
    }

    /// One of `then` or `else`: an operation on an entry.
    struct Operation: ParamsObject {
        static let members = ["op", "cache", "group", "key", "value", "data", "ttl", "by", "initial"]
        static let requiredMembers = ["op", "key"]
        /// Each operation, and the members it takes beyond `op`, `cache`, `group` and `key`.
        static let kinds: [(op: String, takes: [String])] = [
            ("set", ["value", "data", "ttl"]), ("remove", []), ("increment", ["by", "initial", "ttl"]), ("get", []),
        ]
        let operation: EntryTransaction.Operation

        init(_ p: ParamsReader) throws(ResponseError) {
            let op = try p.require("op", as: String.self)
            guard let kind = Self.kinds.first(where: { $0.op == op }) else {
                let names = Self.kinds.map(\.op)
                // A short form (`inc`) is as likely a slip as a misspelling.
                let nearest = NearestName.suggestion(for: op, among: names) ?? names.first { !op.isEmpty && $0.hasPrefix(op) }
                let meant = nearest.map { "; did you mean \"\($0)\"?" }
                    ?? " (one of \(names.joined(separator: ", ")))"
                throw .invalidParams("\(p.path).op: unknown operation \"\(op.echoed)\"\(meant)")
            }
            for member in ["value", "data", "ttl", "by", "initial"] where p.object[member] != nil && !kind.takes.contains(member) {
                throw .invalidParams("\(p.path).\(member): \(op == "increment" ? "an" : "a") \(op) operation takes no \(member)")
            }
            let target = EntryTransaction.Target(cache: try p.cacheName(), key: try p.entryKey())
            let action: EntryTransaction.Action
            switch op {
            case "set":
                let (kind, bytes) = try p.storedValue()
                action = .set(kind: kind, bytes: bytes, ttl: try p.milliseconds("ttl"))
            case "increment":
                action = .increment(by: try CacheIncrement.Params.count(p, "by") ?? 1,
                                    initial: try CacheIncrement.Params.count(p, "initial") ?? 0, ttl: try p.milliseconds("ttl"))
            case "remove":
                action = .remove
            default:
                action = .get
            }
            operation = EntryTransaction.Operation(target, action)
        }
    }

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        let outcome = try r.server.mappingStoreErrors { () throws(StoreError) in try r.server.store.run(p.transaction) }
        return .afterCommit(Result(outcome: outcome))
    }

    /// `{"succeeded": B, "results": [...], "failed"?: {index, key, revision}}`.
    struct Result: MethodResult {
        let outcome: EntryTransaction.Outcome

        var json: JSON {
            var o: JSONObject = ["succeeded": .bool(outcome.succeeded), "results": .array(outcome.results.map(Self.json))]
            if let f = outcome.failed {
                o["failed"] = ["index": .int(f.index), "key": .string(f.key), "revision": f.revision.map { .int(Int($0)) } ?? .null]
            }
            return .object(o)
        }

        private static func json(_ r: EntryTransaction.OperationResult) -> JSON {
            switch r {
            case .stored(let revision):
                return ["revision": .int(Int(revision))]
            case .removed(let removed):
                return ["removed": .bool(removed)]
            case .counted(let value, let revision):
                return ["value": .int(Int(value)), "revision": .int(Int(revision))]
            case .got(let found):
                // Exactly what cache.get answers.
                guard let found else { return ["found": false] }
                var w = JSONWriter(capacity: 256)
                CacheGet.write(found, into: &w)
                return .fragment(JSONFragment(validJSON: w.copiedBytes))
            }
        }
    }
}
