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

    public var kind: Kind
    public var bytes: [UInt8]
    /// Milliseconds since 1970 when it was stored.
    public var storedAt: Int64
    /// When it was stored or last touched; expiry counts from here.
    public var validatedAt: Int64
    /// Its own lifetime in milliseconds, overriding the cache's lifespan; 0 = forever.
    public var ttl: Int64?
    /// Its row in the disk tier; 0 when it has none.
    var diskID: Int64 = 0

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
/// Compared byte for byte, as SQLite compares them: Swift's `String` equality
/// treats canonically equivalent text ("é" and "e" + U+0301) as equal, which
/// would make two stored keys one in memory.
///
/// The bytes are hashed once, when the key is made: a request's key is looked
/// up, inserted and evicted several times over, and each of those then hashes
/// one integer instead of both strings again.
public struct EntryKey: Hashable, Sendable {
    public let group: String
    public let key: String
    private let bytesHash: Int

    public init(group: String, key: String) {
        self.group = group
        self.key = key
        var hasher = Hasher()
        ExactString(key).hash(into: &hasher)
        ExactString(group).hash(into: &hasher)
        bytesHash = hasher.finalize()
    }

    public static func == (a: EntryKey, b: EntryKey) -> Bool {
        a.bytesHash == b.bytesHash && ExactString.bytesEqual(a.key, b.key) && ExactString.bytesEqual(a.group, b.group)
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
        return a.withUTF8 { x in
            b.withUTF8 { y in
                x.count == y.count && (x.count == 0 || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0)
            }
        }
    }

    func hash(into hasher: inout Hasher) {
        var copy = value
        copy.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        hasher.combine(value.utf8.count)
    }
}
