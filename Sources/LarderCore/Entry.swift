#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What is stored under a key: JSON text or raw bytes, and when.
public struct Entry: Sendable {
    public enum Kind: Int, Sendable {
        /// `bytes` is compact JSON text.
        case json = 0
        /// `bytes` is opaque data.
        case data = 1
        /// `bytes` is a tagged object (`StoredObject`) as compact JSON text.
        case object = 2
    }

    // In this order the fields pack into 56 bytes (the memory tier holds
    // one per entry, and a hit reads them from a line it did not have).
    public var bytes: [UInt8]
    /// Milliseconds since 1970 when it was stored.
    public var storedAt: Int64
    /// When it was stored or last touched; expiry counts from here.
    public var validatedAt: Int64
    /// Its row in the disk tier; 0 when it has none.
    var diskID: Int64 = 0
    /// Changes on every write of the entry, never the same twice for its key (SPEC 6.14).
    public var revision: Int64 = 0
    /// Its own lifetime in milliseconds, overriding the cache's lifespan; 0 = forever.
    public var ttl: Int64?
    public var kind: Kind

    public init(kind: Kind, bytes: [UInt8], storedAt: Int64, ttl: Int64?) {
        self.kind = kind
        self.bytes = bytes
        self.storedAt = storedAt
        self.validatedAt = storedAt
        self.ttl = ttl
    }

    public var size: Int { bytes.count }

    /// When it expires under a cache lifespan, or nil if never.
    public func expiresAt(lifespan: Int64) -> Int64? {
        let life = ttl ?? lifespan
        return life > 0 ? validatedAt + life : nil
    }

    public func isExpired(at now: Int64, lifespan: Int64) -> Bool {
        guard let e = expiresAt(lifespan: lifespan) else { return false }
        return now >= e
    }
}

/// Where an entry lives inside a cache.
///
/// Held as UTF-8 bytes and compared byte for byte, as SQLite compares them:
/// Swift's `String` equality treats canonically equivalent text ("é" and
/// "e" + U+0301) as equal, which would make two stored keys one in memory.
/// The bytes also let a request's key be looked up in the memory tier
/// straight from the request (`EntryKey.hash(group:key:)`), with no key made.
///
/// The bytes are hashed once, when the key is made: a key is looked up,
/// inserted and evicted several times over, and each of those then uses one
/// integer instead of hashing the text again.
public struct EntryKey: Hashable, Sendable {
    /// The group's UTF-8 followed by the key's.
    private let utf8: KeyBytes
    private let groupCount: Int32
    /// `EntryKey.hash(group:key:)` of the two.
    let bytesHash: Int

    public init(group: String, key: String) {
        var group = group, key = key
        self = group.withUTF8 { g in key.withUTF8 { k in EntryKey(group: g, key: k) } }
    }

    /// A key from text already known to be valid UTF-8.
    public init(group: UnsafeBufferPointer<UInt8>, key: UnsafeBufferPointer<UInt8>) {
        utf8 = KeyBytes(group, key)
        groupCount = Int32(group.count)
        bytesHash = Self.hash(group: group, key: key)
    }

    public var group: String { withGroupUTF8 { String(decoding: $0, as: UTF8.self) } }
    public var key: String { withKeyUTF8 { String(decoding: $0, as: UTF8.self) } }

    public func withGroupUTF8<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try utf8.withBytes { try body(UnsafeBufferPointer(rebasing: $0[..<Int(groupCount)])) }
    }

    public func withKeyUTF8<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try utf8.withBytes { try body(UnsafeBufferPointer(rebasing: $0[Int(groupCount)...])) }
    }

    /// Whether this is the key `key` in `group`, byte for byte.
    func `is`(group: UnsafeBufferPointer<UInt8>, key: UnsafeBufferPointer<UInt8>) -> Bool {
        guard Int(groupCount) == group.count, utf8.count == group.count + key.count else { return false }
        return utf8.withBytes { mine in
            ExactString.same(mine.baseAddress, group.baseAddress, group.count)
                && ExactString.same(mine.baseAddress.map { $0 + group.count }, key.baseAddress, key.count)
        }
    }

    /// The hash a key of these bytes has; a lookup from borrowed bytes uses it too.
    static func hash(group: UnsafeBufferPointer<UInt8>, key: UnsafeBufferPointer<UInt8>) -> Int {
        KeyHash.of(group: group, key: key)
    }

    /// Byte order of (group, key), as SQLite orders them.
    static func precedes(_ a: EntryKey, _ b: EntryKey) -> Bool {
        a.withGroupUTF8 { ag in b.withGroupUTF8 { bg in
            if !ag.elementsEqual(bg) { return ag.lexicographicallyPrecedes(bg) }
            return a.withKeyUTF8 { ak in b.withKeyUTF8 { bk in ak.lexicographicallyPrecedes(bk) } }
        } }
    }

    public static func == (a: EntryKey, b: EntryKey) -> Bool {
        a.bytesHash == b.bytesHash && b.withGroupUTF8 { g in b.withKeyUTF8 { k in a.is(group: g, key: k) } }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(bytesHash)
    }
}

/// A string that equals another only when their UTF-8 bytes are the same.
struct ExactString: Hashable {
    let value: String
    init(_ value: String) { self.value = value }

    static func == (a: ExactString, b: ExactString) -> Bool { bytesEqual(a.value, b.value) }

    static func bytesEqual(_ a: String, _ b: String) -> Bool {
        var a = a, b = b
        return a.withUTF8 { x in b.withUTF8 { y in x.count == y.count && same(x.baseAddress, y.baseAddress, x.count) } }
    }

    /// Whether `count` bytes at the two places are the same.
    static func same(_ a: UnsafePointer<UInt8>?, _ b: UnsafePointer<UInt8>?, _ count: Int) -> Bool {
        guard count > 0, let a, let b else { return true }
        return memcmp(a, b, count) == 0
    }

    func hash(into hasher: inout Hasher) {
        var copy = value
        copy.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        hasher.combine(value.utf8.count)
    }
}
