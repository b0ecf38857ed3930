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
            try UTF8Text.with(p.cache) { (name) throws(StoreError) in Response(afterCommit: try Self.write(p.write, in: store, cache: name)) }
        }
    }

    /// Writes the entry into the cache (created with defaults if need be).
    @inline(__always)
    static func write(_ write: Cache.Write, in store: Store, cache name: UnsafeBufferPointer<UInt8>) throws(StoreError) -> WriteAnswer<Result> {
        let cache = try store.cache(namedUTF8: name, create: true)!
        if let checked = try write.bytes.withUnsafeBufferPointer({ (value) throws(StoreError) in
            try Self.checked(write.key, kind: write.kind, value: value, ttl: write.ttl, condition: write.condition, in: cache)
        }) { return checked }
        return .result(Result(size: write.bytes.count, revision: try cache.set(write)))
    }

    /// `write` for a value lent as bytes.
    @inline(__always)
    static func write(_ key: EntryKey, kind: Entry.Kind, value: UnsafeBufferPointer<UInt8>, ttl: Int64?, condition: WriteCondition?,
                      in store: Store, cache name: UnsafeBufferPointer<UInt8>) throws(StoreError) -> WriteAnswer<Result> {
        let cache = try store.cache(namedUTF8: name, create: true)!
        if let checked = try Self.checked(key, kind: kind, value: value, ttl: ttl, condition: condition, in: cache) { return checked }
        return .result(Result(size: value.count, revision: try cache.set(key, kind: kind, value: value, ttl: ttl, condition: condition)))
    }

    /// A conditional set that the store checks as it writes it
    /// (`Cache.checksAsItWrites`), answered once that is decided; nil for
    /// any other set.
    private static func checked(_ key: EntryKey, kind: Entry.Kind, value: UnsafeBufferPointer<UInt8>, ttl: Int64?, condition: WriteCondition?,
                                in cache: Cache) throws(StoreError) -> WriteAnswer<Result>? {
        guard let condition, cache.checksAsItWrites else { return nil }
        let size = value.count
        let pending = try cache.setChecked(key, kind: kind, value: value, ttl: ttl, condition: condition)
        return .decided(pending) { Result(size: size, revision: $0.revision) }
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
