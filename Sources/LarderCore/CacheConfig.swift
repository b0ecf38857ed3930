import LarderJSON

/// A cache's settings, kept in the store so a restarted process sees them.
public struct CacheConfig: Equatable, Sendable {
    /// Limits of one tier; 0 means unlimited.
    public struct Limits: Equatable, Sendable {
        public var maxCount: Int
        public var maxBytes: Int
        public init(maxCount: Int, maxBytes: Int) {
            self.maxCount = maxCount
            self.maxBytes = maxBytes
        }
    }

    /// False: the cache lives in memory only and is empty after a restart.
    public var persistent = true
    public var memory = Limits(maxCount: 10_000, maxBytes: 64 << 20)
    public var disk = Limits(maxCount: 0, maxBytes: 0)
    /// Milliseconds an entry stays valid after it is stored or touched; 0 = forever.
    public var lifespan: Int64 = 0
    /// Return expired entries (marked `expired`) instead of treating them as misses.
    public var returnsExpired = false

    public init() {}

    public var json: JSON {
        [
            "persistent": .bool(persistent),
            "memory": ["maxCount": .int(memory.maxCount), "maxBytes": .int(memory.maxBytes)],
            "disk": ["maxCount": .int(disk.maxCount), "maxBytes": .int(disk.maxBytes)],
            "lifespan": .number(JSONNumber(Double(lifespan) / 1000)),
            "returnsExpired": .bool(returnsExpired),
        ]
    }

    /// Reads what `json` wrote; missing members keep their defaults.
    init(stored json: JSON) {
        if let p = json["persistent"]?.boolValue { persistent = p }
        if let c = json["memory"]?["maxCount"]?.numberValue?.int { memory.maxCount = c }
        if let b = json["memory"]?["maxBytes"]?.numberValue?.int { memory.maxBytes = b }
        if let c = json["disk"]?["maxCount"]?.numberValue?.int { disk.maxCount = c }
        if let b = json["disk"]?["maxBytes"]?.numberValue?.int { disk.maxBytes = b }
        if let l = json["lifespan"]?.numberValue?.double { lifespan = Int64((l * 1000).rounded()) }
        if let r = json["returnsExpired"]?.boolValue { returnsExpired = r }
    }
}

/// The settings a `cache.open` names; what it leaves out stays as it was.
public struct CacheConfigChange: Sendable {
    public var persistent: Bool?
    public var memoryMaxCount: Int?
    public var memoryMaxBytes: Int?
    public var diskMaxCount: Int?
    public var diskMaxBytes: Int?
    public var lifespan: Int64?
    public var returnsExpired: Bool?

    public init() {}

    func applied(to base: CacheConfig) -> CacheConfig {
        var c = base
        if let v = persistent { c.persistent = v }
        if let v = memoryMaxCount { c.memory.maxCount = v }
        if let v = memoryMaxBytes { c.memory.maxBytes = v }
        if let v = diskMaxCount { c.disk.maxCount = v }
        if let v = diskMaxBytes { c.disk.maxBytes = v }
        if let v = lifespan { c.lifespan = v }
        if let v = returnsExpired { c.returnsExpired = v }
        return c
    }
}
