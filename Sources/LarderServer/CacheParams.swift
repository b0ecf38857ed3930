import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// The rules params of many methods share, each stated once. The direct path
/// for plain `cache.get`/`cache.set` (DirectAnswers.swift) applies the same
/// rules to bytes; where a rule fails it declines and this path reports why.
enum ParamRules {
    /// The cache a request names when it names none.
    static let defaultCacheName: StaticString = "default"

    /// Durations travel as seconds (fractional allowed) and are kept as
    /// milliseconds; nil when negative or too large to keep.
    static func milliseconds(seconds: Double) -> Int64? {
        guard seconds >= 0 && seconds < 9e15 else { return nil }
        return Int64((seconds * 1000).rounded())
    }
}

extension ParamsReader {
    /// `cache`: a non-empty name, "default" when absent.
    func cacheName() throws(ResponseError) -> String {
        let name = try optional("cache", as: String.self) ?? ParamRules.defaultCacheName.description
        guard !name.isEmpty else { throw .invalidParams("\(path).cache must not be empty") }
        return name
    }

    /// `group`: any string, "" (the default group) when absent.
    func group() throws(ResponseError) -> String {
        try optional("group", as: String.self) ?? ""
    }

    /// A required non-empty key under `name`, in the request's group.
    func entryKey(_ name: String = "key") throws(ResponseError) -> EntryKey {
        EntryKey(group: try group(), key: try nonEmptyKey(try require(name, as: String.self), at: "\(path).\(name)"))
    }

    func nonEmptyKey(_ key: String, at path: String) throws(ResponseError) -> String {
        guard !key.isEmpty else { throw .invalidParams("\(path) must not be empty") }
        return key
    }

    /// Seconds (fractional allowed, not negative) as milliseconds.
    func milliseconds(_ name: String) throws(ResponseError) -> Int64? {
        guard let seconds = try optional(name, as: Double.self) else { return nil }
        guard let ms = ParamRules.milliseconds(seconds: seconds) else {
            throw .invalidParams("\(path).\(name) " + (seconds < 0 ? "must not be negative" : "is too large"))
        }
        return ms
    }

    /// A limit: a non-negative integer, 0 meaning unlimited.
    func limit(_ name: String) throws(ResponseError) -> Int? {
        guard let n = try optional(name, as: Int.self) else { return nil }
        guard n >= 0 else { throw .invalidParams("\(path).\(name) must not be negative (0 means no limit)") }
        return n
    }

    /// A page size between 1 and `max`, `default` when absent.
    func pageLimit(default defaultLimit: Int, max: Int) throws(ResponseError) -> Int {
        let limit = try optional("limit", as: Int.self) ?? defaultLimit
        guard limit > 0 && limit <= max else { throw .invalidParams("\(path).limit must be between 1 and \(max)") }
        return limit
    }

    /// `value` (any JSON) or `data` (base64 bytes): exactly one of them.
    func storedValue() throws(ResponseError) -> (Entry.Kind, [UInt8]) {
        let value = object["value"], data = self["data"]
        switch (value, data) {
        case (nil, nil):
            throw .invalidParams("\(path) needs value (any JSON) or data (base64 bytes)")
        case (.some, .some):
            throw .invalidParams("\(path) has both value and data; give one")
        case (.some(let v), nil):
            return (.json, v.encoded)
        case (nil, .some(let d)):
            guard case .string(let text) = d else { throw ParamsReader.mismatch(at: "\(path).data", expected: "base64 string", got: d) }
            guard let bytes = Base64.decode(text) else { throw .invalidParams("\(path).data is not valid base64") }
            return (.data, bytes)
        }
    }

    /// One entry to write, from `key`, `value`/`data`, `ttl` and its condition.
    func write() throws(ResponseError) -> Cache.Write {
        let key = try entryKey()
        let (kind, bytes) = try storedValue()
        return Cache.Write(key: key, kind: kind, bytes: bytes, ttl: try milliseconds("ttl"), condition: try condition())
    }

    /// A write's condition (SPEC 6.14): `ifRevision` or `ifAbsent: true`, not both.
    func condition() throws(ResponseError) -> WriteCondition? {
        let revision = try optional("ifRevision", as: Int.self)
        let absent = try optional("ifAbsent", as: Bool.self) ?? false
        if revision != nil && absent { throw .invalidParams("\(path) has both ifRevision and ifAbsent; give one") }
        if let revision { return .revision(Int64(revision)) }
        return absent ? .absent : nil
    }
}

/// The params of the methods that change one entry without replacing its
/// value, `cache.remove` and `cache.touch`: `EntryParams` and `ifRevision`.
struct ConditionalEntryParams: ParamsObject {
    static let members = ["cache", "group", "key", "ifRevision"]
    static let requiredMembers = ["key"]
    let cache: String
    let key: EntryKey
    let ifRevision: Int64?

    init(_ p: ParamsReader) throws(ResponseError) {
        key = try p.entryKey()
        ifRevision = try p.optional("ifRevision", as: Int.self).map(Int64.init)
        cache = try p.cacheName()
    }
}

/// The params of the methods that name one entry: `cache`, `group`, `key`.
struct EntryParams: ParamsObject {
    static let members = ["cache", "group", "key"]
    static let requiredMembers = ["key"]
    let cache: String
    let key: EntryKey

    init(_ p: ParamsReader) throws(ResponseError) {
        key = try p.entryKey()
        cache = try p.cacheName()
    }
}

extension Server {
    /// The cache named `name`; created with defaults when `create` is true.
    func cache(_ name: String, create: Bool) throws(ResponseError) -> Cache? {
        try mappingStoreErrors { () throws(StoreError) in try store.cache(named: name, create: create) }
    }

    /// A cache that must exist.
    func existingCache(_ name: String) throws(ResponseError) -> Cache {
        guard let c = try cache(name, create: false) else { throw StoreError.cacheNotFound(name).responseError }
        return c
    }

    /// Runs a core operation, mapping its errors to the protocol's.
    func mappingStoreErrors<T>(_ body: () throws(StoreError) -> T) throws(ResponseError) -> T {
        try Self.mappingStoreErrors(body)
    }

    /// `mappingStoreErrors` where no server is at hand (while params are decoded).
    static func mappingStoreErrors<T>(_ body: () throws(StoreError) -> T) throws(ResponseError) -> T {
        do { return try body() } catch { throw error.responseError }
    }
}
