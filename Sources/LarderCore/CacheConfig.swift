import LarderJSON
import LarderStorage

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
    /// How `cache.getOrFetch` asks the client for what is missing.
    public var fetch = FetchSettings()
    /// A purgeable cache, or a durable store (Cashier's NOPersistentStore).
    public var kind = Kind.cache
    /// Keep the entries when the app declares another version (Cashier wipes them by default).
    public var persistsAcrossVersions = false
    /// How long after it expires an entry is removed in the background, in
    /// milliseconds; nil: at once, or never when the cache returns expired entries.
    public var purgeExpiredAfter: Int64?
    /// Keys and values are sealed on disk under the client's key (SPEC 6.11).
    public var encrypted = false

    /// How long after expiring an entry is purged, or nil for never (a
    /// durable store's entries are removed only by the client).
    public var purgeGrace: Int64? { kind == .store ? nil : purgeExpiredAfter ?? (returnsExpired ? nil : 0) }

    public enum Kind: String, Sendable {
        /// Purgeable: limits, eviction, expired entries purged, wiped on an app version change.
        case cache
        /// Durable: lifespans and TTLs as a cache's, none of the rest; only
        /// the client removes what it holds.
        case store
    }

    public init() {}

    /// The settings as `cache.open` reports them.
    public var json: JSON {
        var o = storedMembers
        o.append("fetch", fetch.json)
        o.append("kind", .string(kind.rawValue))
        o.append("persistsAcrossVersions", .bool(persistsAcrossVersions))
        o.append("purgeExpiredAfter", purgeExpiredAfter.map { .number(JSONNumber(Double($0) / 1000)) } ?? .null)
        o.append("encrypted", .bool(encrypted))
        return .object(o)
    }

    /// The settings as stored with the cache: `fetch` only when it differs
    /// from the defaults, so that a store whose caches never fetch stays
    /// readable by a Larder that knows nothing of fetching, and its `shared`
    /// only when true, for the Larders before it.
    var storedJSON: JSON {
        var o = storedMembers
        if fetch != FetchSettings() { o.append("fetch", fetch.storedJSON) }
        if kind != .cache { o.append("kind", .string(kind.rawValue)) }
        if persistsAcrossVersions { o.append("persistsAcrossVersions", true) }
        if let purgeExpiredAfter { o.append("purgeExpiredAfter", .number(JSONNumber(Double(purgeExpiredAfter) / 1000))) }
        if encrypted { o.append("encrypted", true) }
        return .object(o)
    }

    private var storedMembers: JSONObject {
        [
            "persistent": .bool(persistent),
            "memory": ["maxCount": .int(memory.maxCount), "maxBytes": .int(memory.maxBytes)],
            "disk": ["maxCount": .int(disk.maxCount), "maxBytes": .int(disk.maxBytes)],
            "lifespan": .number(JSONNumber(Double(lifespan) / 1000)),
            "returnsExpired": .bool(returnsExpired),
        ]
    }

    /// Reads what `json` wrote for the cache `name`, every member of it and
    /// nothing else: settings guessed at would keep or evict entries against
    /// the client's wishes, so anything else is `.corrupt`.
    init(stored text: String, cache name: String) throws(StoreError) {
        func corrupt(_ reason: String) -> StoreError { .corrupt(.cacheSettings(cache: name), reason: reason) }
        let json: JSON
        do { json = try JSONParser.parse(text) } catch { throw corrupt("not JSON (\(error))") }
        guard case .object(let o) = json else { throw corrupt("expected an object, got \(json.typeName)") }
        if let unknown = o.unknownMember(knowing: ["persistent", "memory", "disk", "lifespan", "returnsExpired", "fetch", "kind", "persistsAcrossVersions", "purgeExpiredAfter", "encrypted"], at: "") {
            throw corrupt("unknown setting \"\(unknown.path)\"")
        }

        func member(_ key: String, in o: JSONObject, at path: String) throws(StoreError) -> JSON {
            guard let v = o[key] else { throw corrupt("\(path) is missing") }
            return v
        }
        func bool(_ key: String) throws(StoreError) -> Bool {
            let v = try member(key, in: o, at: key)
            guard case .bool(let b) = v else { throw corrupt("\(key): expected boolean, got \(v.typeName)") }
            return b
        }
        func limits(_ key: String) throws(StoreError) -> Limits {
            let v = try member(key, in: o, at: key)
            guard case .object(let l) = v else { throw corrupt("\(key): expected an object, got \(v.typeName)") }
            if let unknown = l.unknownMember(knowing: ["maxCount", "maxBytes"], at: key) {
                throw corrupt("unknown setting \"\(unknown.path)\"")
            }
            func count(_ limit: String) throws(StoreError) -> Int {
                let n = try member(limit, in: l, at: "\(key).\(limit)")
                guard let i = n.numberValue?.int, i >= 0 else {
                    throw corrupt("\(key).\(limit): expected a non-negative integer, got \(n)")
                }
                return i
            }
            return Limits(maxCount: try count("maxCount"), maxBytes: try count("maxBytes"))
        }

        persistent = try bool("persistent")
        memory = try limits("memory")
        disk = try limits("disk")
        let seconds = try member("lifespan", in: o, at: "lifespan")
        guard let l = seconds.numberValue?.double, l >= 0, l < 9e15 else {
            throw corrupt("lifespan: expected a non-negative number of seconds, got \(seconds)")
        }
        lifespan = Int64((l * 1000).rounded())
        returnsExpired = try bool("returnsExpired")
        if let k = o["kind"] {
            guard case .string(let text) = k, let kind = Kind(rawValue: text) else { throw corrupt("kind: expected \"cache\" or \"store\", got \(k)") }
            self.kind = kind
        }
        if let p = o["persistsAcrossVersions"] {
            guard case .bool(let b) = p else { throw corrupt("persistsAcrossVersions: expected boolean, got \(p.typeName)") }
            persistsAcrossVersions = b
        }
        if let e = o["encrypted"] {
            guard case .bool(let b) = e else { throw corrupt("encrypted: expected boolean, got \(e.typeName)") }
            encrypted = b
        }
        if let p = o["purgeExpiredAfter"], !p.isNull {
            guard let seconds = p.numberValue?.double, seconds >= 0, seconds < 9e15 else {
                throw corrupt("purgeExpiredAfter: expected a non-negative number of seconds, got \(p)")
            }
            purgeExpiredAfter = Int64((seconds * 1000).rounded())
        }
        if let f = o["fetch"] {
            do { fetch = try FetchSettings(stored: f) } catch { throw corrupt("fetch: \(error.reason)") }
        }
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
    public var fetch = FetchSettings.Change()
    public var kind: CacheConfig.Kind?
    public var persistsAcrossVersions: Bool?
    /// `.some(nil)`: back to the default.
    public var purgeExpiredAfter: Int64??
    public var encrypted: Bool?

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
        c.fetch = fetch.applied(to: c.fetch)
        if let v = kind { c.kind = v }
        if let v = persistsAcrossVersions { c.persistsAcrossVersions = v }
        if let v = purgeExpiredAfter { c.purgeExpiredAfter = v }
        if let v = encrypted { c.encrypted = v }
        return c
    }
}
