/// What is stored under a key: JSON text or raw bytes, and when.
public struct Entry: Sendable {
    public enum Kind: Int, Sendable {
        /// `bytes` is compact JSON text.
        case json = 0
        /// `bytes` is opaque data.
        case data = 1
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
public struct EntryKey: Hashable, Sendable {
    public var group: String
    public var key: String
    public init(group: String, key: String) {
        self.group = group
        self.key = key
    }
}
