import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// `cache.increment`: adds to an integer atomically (SPEC 6.14, 9.54);
/// answered once it is committed.
///
/// Plain requests are answered from their bytes (DirectAnswers.swift); both
/// paths call `increment` and write `Result` alike.
enum CacheIncrement: MethodDefinition {
    static let methodName: StaticString = "cache.increment"
    static let method = methodName.description

    struct Params: ParamsObject {
        static let members = ["cache", "group", "key", "by", "initial", "ttl"]
        static let requiredMembers = ["key"]
        let cache: String
        let key: EntryKey
        let by: Int64
        let initial: Int64
        let ttl: Int64?

        init(_ p: ParamsReader) throws(ResponseError) {
            key = try p.entryKey()
            by = try Self.count(p, "by") ?? 1
            initial = try Self.count(p, "initial") ?? 0
            ttl = try p.milliseconds("ttl")
            cache = try p.cacheName()
        }

        /// An integer a counter can hold, if given.
        static func count(_ p: ParamsReader, _ name: String) throws(ResponseError) -> Int64? {
            guard let n = try p.optional(name, as: Int.self) else { return nil }
            // Not `abs`: it traps on Int64.min, which a request may send.
            guard Int64(n) >= -Cache.largestCount && Int64(n) <= Cache.largestCount else {
                throw .invalidParams("\(p.path).\(name) must be an integer within ±\(Cache.largestCount)")
            }
            return Int64(n)
        }
    }

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        let cache = try r.server.cache(p.cache, create: true)!
        return Response(afterCommit: try r.server.mappingStoreErrors { () throws(StoreError) in
            try increment(p.key, by: p.by, initial: p.initial, ttl: p.ttl, in: cache)
        })
    }

    /// Adds to the counter; both paths end here. Where the store adds as it
    /// writes (`Cache.checksAsItWrites`), the answer waits for what it did.
    @inline(__always)
    static func increment(_ k: EntryKey, by: Int64, initial: Int64, ttl: Int64?, in cache: Cache) throws(StoreError) -> WriteAnswer<Result> {
        if cache.checksAsItWrites, let pending = try cache.incrementChecked(k, by: by, initial: initial, ttl: ttl) {
            return .decided(pending) { Result(value: $0.count, revision: $0.revision) }
        }
        let (value, revision) = try cache.increment(k, by: by, initial: initial, ttl: ttl)
        return .result(Result(value: value, revision: revision))
    }

    /// `{"value": V, "revision": R}`: the sum stored, and the entry's new revision.
    struct Result: MethodResult {
        let value: Int64
        let revision: Int64

        @inline(__always)
        func write(into w: inout JSONWriter) {
            w.writeASCII("{\"value\":")
            w.writeInt(Int(value))
            w.writeASCII(",\"revision\":")
            w.writeInt(Int(revision))
            w.writeASCII("}")
        }

        var json: JSON {
            var w = JSONWriter(capacity: 48)
            write(into: &w)
            return .fragment(JSONFragment(validJSON: w.copiedBytes))
        }
    }
}
