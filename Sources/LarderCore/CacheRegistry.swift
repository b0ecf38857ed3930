#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LarderJSON
import LarderSystem
import LarderStorage

/// The caches of a store: those loaded, found by name (the one found last
/// first), opened or created with their settings, dropped; the app version
/// they are claimed for; and the background purge of their expired entries.
final class CacheRegistry {
    /// What every cache of the store sees of it.
    let context: CacheContext
    /// The cache found last: bursts of requests name one cache, and comparing
    /// its name is cheaper than hashing it.
    private var lastCache: Cache?
    /// Caches the background purge looked at (for tests: only those with entries due).
    private(set) var purgeLooks = 0
    /// The version the store last saw before this process declared one.
    private(set) var previousAppVersion: String?

    init(context: CacheContext) {
        self.context = context
    }

    private var database: any SQLConnection { context.database }
    var loaded: LoadedCaches { context.loaded }
    var appVersion: String? { context.appVersion }

    /// The cache named `name`: loaded from the store, or created with default
    /// settings when `create` is true; nil when it does not exist.
    func cache(named name: String, create: Bool) throws(StoreError) -> Cache? {
        if let c = lastCache, !c.isStale, !c.isDropped, ExactString.bytesEqual(c.name, name) { return c }
        if let c = loaded.byName[ExactString(name)] {
            if c.isStale { try c.reload() }
            if !c.isDropped {
                lastCache = c
                return c
            }
        }
        if let c = try load(name) { return c }
        guard create else { return nil }
        return try open(name, change: CacheConfigChange()).cache
    }

    /// `cache(named:create:)` for a name given as UTF-8 (valid UTF-8): the
    /// cache last used is recognised without making a String.
    // Inlined into `Store.cache(namedUTF8:create:)`, the server's call: as a
    // call of its own it cost every request about 22 instructions (callgrind).
    @inline(__always)
    func cache(namedUTF8 name: UnsafeBufferPointer<UInt8>, create: Bool) throws(StoreError) -> Cache? {
        if let c = lastCache, !c.isStale, !c.isDropped, c.nameUTF8.count == name.count,
           c.nameUTF8.withUnsafeBufferPointer({ ExactString.same($0.baseAddress, name.baseAddress, name.count) }) { return c }
        return try cache(named: String(decoding: name, as: UTF8.self), create: create)
    }

    /// Opens (creating if needed) a cache and applies a settings change.
    func open(_ name: String, change: CacheConfigChange) throws(StoreError) -> (cache: Cache, created: Bool) {
        if let existing = try cache(named: name, create: false), change.applied(to: existing.config) == existing.config {
            // Opening an encrypted cache checks the session's key.
            try existing.ready()
            return (existing, false)
        }
        // Whether to create the cache, and the settings a change starts from,
        // are decided again holding the write lock, when `beginWrite` has caught
        // up with other processes and none can commit until this transaction
        // ends. Between the look above and the lock another process may have
        // created the cache: its row is then adopted and the change applied
        // to it, where a second INSERT would fail on the unique name and doom
        // the whole burst's transaction, the other requests' writes with it.
        try context.transactions.begin()
        if let existing = try cache(named: name, create: false) {
            try update(existing, with: change)
            return (existing, false)
        }
        let config = change.applied(to: CacheConfig())
        try Self.checkDurable(config, existing: nil)
        let sealing = config.encrypted ? try context.encryption.sealing(forNew: name) : nil
        let s = try database.statement("INSERT INTO caches (name, config, app_version, key_check, generation) VALUES (?, ?, ?, ?, ?) RETURNING id")
        s.bind(1, name).bind(2, config.storedJSON.description)
        if let appVersion { s.bind(3, appVersion) } else { s.bindNull(3) }
        if let sealing { s.bind(4, blob: sealing.check).bind(5, blob: sealing.generation) } else { s.bindNull(4).bindNull(5) }
        defer { s.reset() }
        guard try s.step() else { throw .internalFailure("creating cache \"\(name)\" stored no settings (the insert returned no row)") }
        let c = Cache(name: name, id: try s.int64(0), config: config, context: context)
        c.appVersion = appVersion
        c.isClaimed = appVersion != nil
        loaded.add(c)
        return (c, true)
    }

    /// Applies a settings change to an existing cache, evicting down to new limits.
    private func update(_ existing: Cache, with change: CacheConfigChange) throws(StoreError) {
        let updated = change.applied(to: existing.config)
        if updated.encrypted != existing.config.encrypted {
            throw .invalidArgument(field: "encrypted", reason: "a cache cannot change between encrypted and not; drop it first, or copy its entries into a new cache")
        }
        try Self.checkDurable(updated, existing: existing.config)
        try existing.ready()
        guard updated != existing.config else { return }
        let lifespanChanged = updated.lifespan != existing.config.lifespan
        if updated.persistent != existing.config.persistent {
            try existing.changePersistence(to: updated)
        } else {
            try existing.save(updated)
            existing.config = updated
        }
        if lifespanChanged {
            if updated.persistent { try existing.disk.setLifespan(updated.lifespan) }
            // Entries that did not expire may now: the next eviction looks.
            existing.nextMemoryExpiry = Int64.min
        }
        existing.evictFromMemory()
        try existing.evictFromDisk()
        // Entries may now expire sooner, or the cache purge what it kept.
        existing.purgeSoon()
    }

    /// A durable store keeps what it is given: its entries may expire, as a
    /// cache's do (reported invalid, returned with `returnsExpired`, revived
    /// by a touch), but nothing removes them save the client — no disk
    /// limit, no purge — and it cannot become a cache, or a cache a store.
    private static func checkDurable(_ config: CacheConfig, existing: CacheConfig?) throws(StoreError) {
        if let existing, config.kind != existing.kind {
            throw .invalidArgument(field: "kind", reason: "a \(existing.kind.rawValue) cannot become a \(config.kind.rawValue); drop it first")
        }
        guard config.kind == .store else { return }
        if !config.persistent { throw .invalidArgument(field: "persistent", reason: "a durable store (kind \"store\") is always persistent; only a cache (kind \"cache\") can be memory-only") }
        let evicts = "a durable store (kind \"store\") has no disk limits: its entries are never evicted"
        if config.disk.maxCount != 0 { throw .invalidArgument(field: "disk.maxCount", reason: evicts) }
        if config.disk.maxBytes != 0 { throw .invalidArgument(field: "disk.maxBytes", reason: evicts) }
        if config.purgeExpiredAfter != nil {
            throw .invalidArgument(field: "purgeExpiredAfter", reason: "a durable store (kind \"store\") is never purged: its expired entries stay until the client removes them or a touch revives them")
        }
    }

    private func load(_ name: String) throws(StoreError) -> Cache? {
        let s = try database.statement("SELECT id, config, app_version FROM caches WHERE name = ?")
        s.bind(1, name)
        guard try s.step() else { s.reset(); return nil }
        let id = try s.int64(0)
        let configText = try s.string(1)
        let recorded = s.isNull(2) ? nil : try s.string(2)
        s.reset()
        let config = try CacheConfig(stored: configText, cache: name)
        let c = Cache(name: name, id: id, config: config, context: context)
        try c.loadTotals()
        loaded.add(c)
        try reconcileAppVersion(c, recorded: recorded)
        return c
    }

    /// Declares the app's version: from now on, a cache first used whose data
    /// another version wrote is wiped (unless it persists across versions or
    /// is a durable store). `previousAppVersion` is the one the store last saw.
    func declareAppVersion(_ version: String) throws(StoreError) {
        let read = try database.statement("SELECT value FROM store_meta WHERE name = 'appVersion'")
        let stored = try read.step() ? read.string(0) : nil
        read.reset()
        if appVersion == nil { previousAppVersion = stored }
        context.appVersion = version
        if stored != version {
            try context.transactions.begin()
            let s = try database.statement(
                "INSERT INTO store_meta (name, value) VALUES ('appVersion', ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value")
            s.bind(1, version)
            try s.run()
        }
        // Caches already in use were reconciled with the version before, or with none.
        for c in loaded.byName.values where !c.isDropped { try reconcileAppVersion(c, recorded: c.appVersion) }
    }

    /// The first use of a cache under a declared app version claims it for
    /// that version: data written under another is removed, from every
    /// tier, with one `cache.cleared` (`appVersion`), and the version is
    /// recorded. Data written with no version declared is kept and adopted:
    /// nothing says which app wrote it. A process that claimed the cache
    /// before, under another version, finds it superseded (`Cache.supersededBy`).
    private func reconcileAppVersion(_ c: Cache, recorded: String?) throws(StoreError) {
        c.appVersion = recorded
        c.isClaimed = false
        c.supersededBy = nil
        guard let current = appVersion else { return }
        guard recorded != current else {
            c.isClaimed = true
            return
        }
        try context.transactions.begin()
        if let recorded, c.config.kind == .cache, !c.config.persistsAcrossVersions {
            _ = try c.clear(group: nil, tier: .all, appVersion: CacheEvent.VersionChange(from: recorded, to: current))
        }
        let s = try database.statement("UPDATE caches SET app_version = ? WHERE id = ?")
        s.bind(1, current).bind(2, c.id)
        try s.run()
        c.appVersion = current
        c.isClaimed = true
        loaded.noteClaim(c)
    }

    /// Removes expired entries of the caches in use, a batch at a time, until
    /// `budget` nanoseconds have passed (checked after each batch); returns
    /// whether some may remain. Run between requests, so that expired data
    /// does not pile up (SPEC 6.6) and no request waits long for it. Looks
    /// only at caches due (`purgeSchedule`): with nothing due it does nothing.
    func purgeExpiredInBackground(budget: UInt64) throws(StoreError) -> Bool {
        let start = MonotonicClock.nanoseconds()
        let now = context.clock.now
        while let (due, c) = context.purgeSchedule.next(dueBy: now) {
            guard c.purgeDue == due, !c.isDropped else { continue }
            c.purgeDue = nil
            purgeLooks += 1
            do {
                if c.isStale {
                    try c.reload()
                    if c.isDropped { continue }
                    // Reading it again scheduled it anew: it is looked at now.
                    c.purgeDue = nil
                }
                // Its expired entries are another app version's, whose processes purge them.
                if c.supersededBy != nil { continue }
                // An encrypted cache the session has no key for waits until
                // unlocked (`Cache.unlock`): its expired keys cannot be read.
                guard !c.config.encrypted || c.sealer != nil else { continue }
                if try c.purgeExpired(limit: Self.purgeBatch) == Self.purgeBatch { c.purgeSoon() } else { try c.scheduleNextPurge() }
            } catch {
                c.purgeSoon()
                throw error
            }
            if MonotonicClock.nanoseconds() - start >= budget { return context.purgeSchedule.hasDue(by: now) }
        }
        return false
    }

    /// Entries removed per step of the background purge: 64 rows took about
    /// 0.2 ms here (release build, 100-byte values), within the 1 ms budget.
    static let purgeBatch = 64

    /// Every cache in the store, by name.
    func all() throws(StoreError) -> [Cache] {
        let s = try database.statement("SELECT name FROM caches ORDER BY name")
        var names: [String] = []
        while try s.step() { names.append(try s.string(0)) }
        s.reset()
        var result: [Cache] = []
        for n in names { if let c = try cache(named: n, create: false) { result.append(c) } }
        return result
    }

    /// Deletes a cache, its settings and all its entries.
    func drop(_ name: String) throws(StoreError) {
        guard let c = try cache(named: name, create: false) else { throw .cacheNotFound(name) }
        // Another app version's cache now, if it claimed it after this process did.
        try c.ready(unlocking: false)
        // In the write transaction, so that a failed commit takes the drop back too.
        try context.transactions.begin()
        try context.recency.write()
        _ = try c.disk.clear(group: nil)
        let s = try database.statement("DELETE FROM caches WHERE id = ?")
        s.bind(1, c.id)
        try s.run()
        c.memory.removeAll()
        c.isDropped = true
        loaded.remove(c)
        context.entriesChanged(.cleared(cache: name))
    }
}
