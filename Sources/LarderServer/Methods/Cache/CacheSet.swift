import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// `cache.set`: stores a value; answered once it is committed.
///
/// Plain requests are answered from their bytes (DirectAnswers.swift); both
/// paths end in `store`, which alone calls the core and makes the result:
/// with the value as an array, or lent (straight from a request's bytes).
enum CacheSet: MethodDefinition {
    static let methodName: StaticString = "cache.set"
    static let method = methodName.description

    struct Params: ParamsObject {
        static let members = ["cache", "group", "key", "value", "data", "ttl", "ifRevision", "ifAbsent"]
        static let requiredMembers = ["key"]
        let cache: String
        let write: Cache.Write

        init(_ p: ParamsReader) throws(ResponseError) {
            write = try p.write()
            cache = try p.cacheName()
        }
    }

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        let store = r.server.store
        return try r.server.mappingStoreErrors { () throws(StoreError) in
            try UTF8Text.with(p.cache) { (name) throws(StoreError) -> Response<Result> in
                let w = p.write
                if let condition = w.condition, let cache = try store.cache(namedUTF8: name, create: true), cache.checksAsItWrites {
                    let pending = try w.bytes.withUnsafeBufferPointer { (value) throws(StoreError) in
                        try cache.setChecked(w.key, kind: w.kind, value: value, ttl: w.ttl, condition: condition)
                    }
                    return .afterDecided(pending) { Result(size: w.bytes.count, revision: $0.revision) }
                }
                return .afterCommit(try Self.write(w, in: store, cache: name))
            }
        }
    }

    /// Writes the entry into the cache (created with defaults if need be).
    @inline(__always)
    static func write(_ write: Cache.Write, in store: Store, cache: UnsafeBufferPointer<UInt8>) throws(StoreError) -> Result {
        let revision = try store.cache(namedUTF8: cache, create: true)!.set(write)
        return Result(size: write.bytes.count, revision: revision)
    }

    /// `write` for a value lent as bytes.
    @inline(__always)
    static func write(_ key: EntryKey, kind: Entry.Kind, value: UnsafeBufferPointer<UInt8>, ttl: Int64?, condition: WriteCondition?,
                      in store: Store, cache: UnsafeBufferPointer<UInt8>) throws(StoreError) -> Result {
        let revision = try store.cache(namedUTF8: cache, create: true)!.set(key, kind: kind, value: value, ttl: ttl, condition: condition)
        return Result(size: value.count, revision: revision)
    }

    /// `{"stored":true,"size":N,"revision":R}`: N is the stored value's
    /// size in bytes, R the entry's new revision (SPEC 6.14).
    struct Result: MethodResult {
        let size: Int
        let revision: Int64

        @inline(__always)
        func write(into w: inout JSONWriter) {
            w.writeASCII("{\"stored\":true,\"size\":")
            w.writeInt(size)
            w.writeASCII(",\"revision\":")
            w.writeInt(Int(revision))
            w.writeASCII("}")
        }

        var json: JSON {
            var w = JSONWriter(capacity: 64)
            write(into: &w)
            return .fragment(JSONFragment(validJSON: w.copiedBytes))
        }
    }
}
