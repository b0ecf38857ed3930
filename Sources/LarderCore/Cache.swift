import LarderJSON
import LarderStorage

/// A named cache: a memory tier in front of a disk tier (or memory alone),
/// with limits, expiry and statistics.
public final class Cache {
    public let name: String
    /// The name's UTF-8, to recognise it in a request's bytes.
    let nameUTF8: [UInt8]
    let id: Int64
    public internal(set) var config: CacheConfig
    /// What the cache sees of its store. Unchecked: the store owns the
    /// context and its caches and outlives them, and a checked reference
    /// costs a retain and a release on every use, several per get.
    unowned(unsafe) let context: CacheContext
    let memory = MemoryTier()
    var disk: DiskTier {
        guard let sealer else { return DiskTier(db: context.database, cacheID: id) }
        return DiskTier(db: context.database, cacheID: id, sealer: sealer, cacheName: name)
    }
    /// An encrypted cache's sealer, once the session's key passed its check
    /// (nil until its first use, and again after the key or the store changed).
    var sealer: CacheSealer?
    /// A `cache.rekey` of it is under way: other uses wait for its end.
    var isRekeying = false
    /// Disk tier totals, kept current so limits never need a COUNT(*).
    var diskCount = 0
    var diskBytes = 0
    /// Set when another writer changed entries: `diskCount` and `diskBytes`
    /// are read again (`exactTotals`) before anything is decided from them.
    var totalsAreStale = false
    public internal(set) var stats = CacheUsage()
    /// The store's caches, whose generation `isStale` compares on every use;
    /// unchecked as `context` is, so that a look costs no retain and release.
    private unowned(unsafe) let loaded: LoadedCaches
    /// `loaded.generation(persistent:)` when settings and totals were last read.
    private var generation: Int
    /// A commit failed, or another process's commit may have changed
    /// anything, since settings and totals were last read: they are read
    /// again before use, and a persistent cache's memory tier emptied (`reload`).
    var isStale: Bool { generation != loaded.generation(persistent: config.persistent) }
    /// Dropped: any further use is refused.
    var isDropped = false
    /// The app version its data was written under, as recorded (nil: none declared).
    var appVersion: String?
    /// This process claimed the cache for the app version it declared: its
    /// first use found that version recorded, or recorded it (SPEC 6.9).
    var isClaimed = false
    /// The app version whose process claimed the cache after this process
    /// did: the cache holds that version's data now, which reads as empty
    /// here, and writes are refused. Learnt when the cache is read again
    /// after another process's commit (`reload`), as a claim changes
    /// everything for the others: a get pays nothing for it.
    var supersededBy: String?
    /// Whether the cache holds another app version's data now (`supersededBy`).
    public var isSuperseded: Bool { supersededBy != nil }
    /// A memory-only cache: no entry in memory expires before this (nil: none
    /// known to expire), so the purge and an eviction look for expired entries only after it.
    var nextMemoryExpiry: Int64?
    /// When the background purge next looks at the cache (`CacheContext.purgeSchedule`):
    /// its earliest expiry plus its purge grace, or `Int64.min` for the next
    /// pass; nil when nothing it holds is known to expire. Only brought
    /// forward between looks: a look may find nothing, never miss something.
    var purgeDue: Int64?

    private var memoryIsOverLimits: Bool {
        let limits = config.memory
        return (limits.maxCount > 0 && memory.count > limits.maxCount) || (limits.maxBytes > 0 && memory.bytes > limits.maxBytes)
    }

    /// Whether other writers are told which entries changed (`ChangeRecord`).
    private let recordsChanges: Bool

    init(name: String, id: Int64, config: CacheConfig, context: CacheContext) {
        self.name = name
        nameUTF8 = Array(name.utf8)
        self.id = id
        self.config = config
        self.context = context
        recordsChanges = context.transactions.otherWriters?.recordsChanges ?? false
        loaded = context.loaded
        generation = context.loaded.generation(persistent: config.persistent)
    }

    /// Reads disk totals, and when the earliest entry expires; called when
    /// the cache is loaded and when another process changed the store.
    func loadTotals() throws(StoreError) {
        totalsAreStale = false
        guard config.persistent else { return }
        (diskCount, diskBytes) = try disk.totals()
        context.recency.noteUsed(atLeast: try disk.maxUsed())
        schedulePurge(expiringAt: try disk.earliestExpiry())
    }

    /// Re-reads settings and totals from the store after a rollback or
    /// another process's commit, either of which may have taken back or
    /// changed what a persistent cache's memory tier holds.
    func reload() throws(StoreError) {
        if config.persistent { memory.removeAll() }
        // By name too: SQLite gives the id of a cache dropped, or whose
        // creation was rolled back, to the next cache created.
        let s = try context.database.statement("SELECT config, app_version FROM caches WHERE id = ? AND name = ?")
        s.bind(1, id).bind(2, name)
        defer { s.reset() }
        guard try s.step() else {
            isDropped = true
            generation = loaded.generation(persistent: config.persistent)
            return
        }
        let wasPersistent = config.persistent
        config = try CacheConfig(stored: s.string(0), cache: name)
        noteRecorded(appVersion: s.isNull(1) ? nil : try s.string(1))
        s.reset()
        // Another process may have rekeyed it: its key is checked again.
        sealer = nil
        if config.persistent != wasPersistent { forgetTiers() }
        try loadTotals()
        generation = loaded.generation(persistent: config.persistent)
    }

    /// Writes `config` as the cache's settings, in the write transaction.
    func save(_ config: CacheConfig) throws(StoreError) {
        try context.transactions.begin()
        let s = try context.database.statement("UPDATE caches SET config = ? WHERE id = ?")
        s.bind(1, config.storedJSON.description).bind(2, id)
        try s.run()
    }

    /// The app version recorded with the cache, read again: once this process
    /// has claimed the cache, another recorded since means a process of that
    /// version claimed it after this one — and, unless the cache keeps its
    /// entries across versions, wiped it and holds it for that version.
    private func noteRecorded(appVersion recorded: String?) {
        appVersion = recorded
        if isClaimed, config.kind == .cache, !config.persistsAcrossVersions, let current = context.appVersion, let recorded, recorded != current {
            supersededBy = recorded
        } else {
            supersededBy = nil
        }
    }

    /// Brings a cache that another process may have changed up to date before
    /// use, and checks the session's key for an encrypted one (unless the use
    /// reads and writes no key or value: emptying it whole needs none).
    // Inlined: as a call (once `isStale` compared generations), a memory hit
    // cost about 25 instructions more (callgrind).
    @inline(__always)
    func ready(unlocking: Bool = true) throws(StoreError) {
        if isStale { try reload() }
        if isDropped { throw .cacheNotFound(name) }
        if let supersededBy { throw .appVersionSuperseded(cache: name, appVersion: context.appVersion ?? "", cacheAppVersion: supersededBy) }
        if config.encrypted && sealer == nil && unlocking { try unlock() }
    }

    /// `ready` for a use that only reads: false when the cache holds another
    /// app version's data (`supersededBy`), which reads as empty.
    @inline(__always)
    func readyToRead() throws(StoreError) -> Bool {
        if isStale { try reload() }
        if isDropped { throw .cacheNotFound(name) }
        if supersededBy != nil { return false }
        if config.encrypted && sealer == nil { try unlock() }
        return true
    }

    /// A stored entry and how it was found.
    public struct Lookup: Sendable {
        public var entry: Entry
        public var expired: Bool
        public var tier: CacheEvent.Tier
        public var expiresAt: Int64?
    }

    // MARK: - Reading

    /// The entry under `key`: nil when absent, or when expired and the cache
    /// does not return expired entries (unless `includingExpired`: a fetch
    /// on a miss may answer an expired entry while it refreshes it).
    public func get(_ k: EntryKey, includingExpired: Bool = false) throws(StoreError) -> Lookup? {
        guard try readyToRead() else { return nil }
        if let i = memory.use(k) { return found(memory.entry(at: i), in: .memory, at: i, includingExpired: includingExpired) }
        return try getFromDisk(k, includingExpired: includingExpired)
    }

    /// The entry under `key` as it stands, expired or not, without counting a
    /// read or making it recent: what a fetch compares before storing.
    public func current(_ k: EntryKey) throws(StoreError) -> Lookup? {
        guard try readyToRead() else { return nil }
        let entry: Entry
        let tier: CacheEvent.Tier
        if let e = memory.peek(k) {
            (entry, tier) = (e, .memory)
        } else if config.persistent, let e = try disk.lookup(k) {
            (entry, tier) = (e, .disk)
        } else {
            return nil
        }
        let expiresAt = entry.expiresAt(lifespan: config.lifespan)
        return Lookup(entry: entry, expired: expiresAt.map { context.clock.now >= $0 } ?? false, tier: tier, expiresAt: expiresAt)
    }

    /// `get` for a key given as the UTF-8 of its group and key (valid UTF-8),
    /// handing a found entry to `body`; returns whether there was one. A
    /// memory hit makes no `EntryKey` and no optional lookup (destroying one
    /// went through the runtime's generic value witnesses, on every hit).
    /// A value too large for the memory tier that the disk tier can read in
    /// place is handed to `inPlace` instead, with the entry's `bytes` empty,
    /// to be read from there: a 60 MB value read into an entry, then into an
    /// answer, was held twice.
    public func get(group: UnsafeBufferPointer<UInt8>, key: UnsafeBufferPointer<UInt8>, _ body: (Lookup) -> Void,
                    inPlace: (Lookup, BlobReader) throws(StoreError) -> Void) throws(StoreError) -> Bool {
        guard try readyToRead() else { return false }
        if let i = memory.use(group: group, key: key) {
            let entry = memory.entry(at: i)
            guard let expired = countRead(of: entry, in: .memory, at: i) else { return false }
            body(Lookup(entry: entry, expired: expired, tier: .memory, expiresAt: entry.expiresAt(lifespan: config.lifespan)))
            return true
        }
        var value: BlobReader?
        guard let found = try getFromDisk(EntryKey(group: group, key: key), leavingLargeValueIn: &value) else { return false }
        if let value { try inPlace(found, value) } else { body(found) }
        return true
    }

    /// A memory-tier hit that has not expired, handed to `body`; false, with
    /// nothing counted, for anything else (a fetch on a miss then looks again).
    public func getFresh(group: UnsafeBufferPointer<UInt8>, key: UnsafeBufferPointer<UInt8>,
                         _ body: (Lookup) -> Void) throws(StoreError) -> Bool {
        guard try readyToRead() else { return false }
        guard let i = memory.use(group: group, key: key) else { return false }
        let entry = memory.entry(at: i)
        let expiresAt = entry.expiresAt(lifespan: config.lifespan)
        if let expiresAt, context.clock.now >= expiresAt { return false }
        _ = countRead(of: entry, in: .memory, at: i)
        body(Lookup(entry: entry, expired: false, tier: .memory, expiresAt: expiresAt))
        return true
    }

    /// The rest of a get once the memory tier holds nothing under `k`: the
    /// entry from the disk tier, kept in memory from now on if it fits.
    private func getFromDisk(_ k: EntryKey, includingExpired: Bool = false) throws(StoreError) -> Lookup? {
        var whole: BlobReader?
        return try getFromDisk(k, includingExpired: includingExpired, leavingLargeValueIn: &whole, leaving: false)
    }

    /// `getFromDisk`, leaving a value too large to keep in memory where the
    /// disk tier holds it, if it can read it there (`DiskTier.lookup`).
    private func getFromDisk(_ k: EntryKey, leavingLargeValueIn inPlace: inout BlobReader?) throws(StoreError) -> Lookup? {
        try getFromDisk(k, includingExpired: false, leavingLargeValueIn: &inPlace, leaving: true)
    }

    private func getFromDisk(_ k: EntryKey, includingExpired: Bool, leavingLargeValueIn inPlace: inout BlobReader?,
                             leaving: Bool) throws(StoreError) -> Lookup? {
        guard config.persistent, var e = try leaving ? disk.lookup(k, leavingLargeValueIn: &inPlace) : disk.lookup(k) else {
            stats.memory.misses += 1
            if config.persistent { stats.disk.misses += 1 }
            return nil
        }
        if let value = inPlace, fitsInMemory(value.count) {
            e.bytes = try value.readAll()
            inPlace = nil
        }
        if inPlace == nil && fitsInMemory(e.size) { keepInMemory(k, e) }
        return found(e, in: .disk, includingExpired: includingExpired)
    }

    /// A found entry as a lookup, or nil when it is expired and reads as a miss.
    private func found(_ entry: Entry, in tier: CacheEvent.Tier, at position: Int = -1, includingExpired: Bool = false) -> Lookup? {
        countRead(of: entry, in: tier, at: position, includingExpired: includingExpired).map {
            Lookup(entry: entry, expired: $0, tier: tier, expiresAt: entry.expiresAt(lifespan: config.lifespan))
        }
    }

    /// Counts a read of a found entry (at `position` in the memory tier, or
    /// -1 when read from disk): whether it has expired, or nil when it
    /// is expired and reads as a miss (and counts as one).
    private func countRead(of entry: Entry, in tier: CacheEvent.Tier, at position: Int, includingExpired: Bool = false) -> Bool? {
        if tracksDiskRecency {
            context.recency.noteUse(of: entry.diskID != 0 || position < 0 ? entry.diskID : rowOfQueuedWrite(at: position))
        }
        // The clock is read only for an entry that can expire.
        let expired = entry.expiresAt(lifespan: config.lifespan).map { context.clock.now >= $0 } ?? false
        if expired && !config.returnsExpired && !includingExpired {
            stats.memory.misses += 1
            if tier == .disk { stats.disk.misses += 1 }
            return nil
        }
        if tier == .memory { stats.memory.hits += 1 } else { stats.memory.misses += 1; stats.disk.hits += 1 }
        return expired
    }

    /// Whether an entry exists, and whether it is still valid.
    public func has(_ k: EntryKey) throws(StoreError) -> (found: Bool, valid: Bool) {
        guard try readyToRead() else { return (false, false) }
        let entry: Entry?
        if let e = memory.peek(k) {
            entry = e
        } else if config.persistent {
            entry = try disk.lookup(k)
        } else {
            entry = nil
        }
        guard let entry else { return (false, false) }
        return (true, !entry.isExpired(at: context.clock.now, lifespan: config.lifespan))
    }

    /// Reads refresh an entry's place in the disk tier's LRU order only when
    /// that order can matter: a persistent cache with a disk limit, or a
    /// purgeable one under a store budget. Without
    /// one, nothing is ever evicted from disk and recording reads would cost
    /// a row update per distinct key read at the next commit.
    private var tracksDiskRecency: Bool {
        config.persistent && (config.disk.maxCount > 0 || config.disk.maxBytes > 0
            || (context.budget.maxBytes != nil && config.kind == .cache))
    }

    // MARK: - Writing

    /// One entry to store.
    public struct Write: Sendable {
        public var key: EntryKey
        public var kind: Entry.Kind
        public var bytes: [UInt8]
        /// Seconds-based lifetime in milliseconds; nil uses the cache's lifespan, 0 never expires.
        public var ttl: Int64?
        /// What must hold of the live entry for the write to go ahead; nil: nothing.
        public var condition: WriteCondition?
        public init(key: EntryKey, kind: Entry.Kind, bytes: [UInt8], ttl: Int64?, condition: WriteCondition? = nil) {
            self.key = key
            self.kind = kind
            self.bytes = bytes
            self.ttl = ttl
            self.condition = condition
        }
    }

    /// Stores one entry; returns its revision. A single statement is atomic
    /// by itself: no savepoint.
    @discardableResult
    public func set(_ w: Write) throws(StoreError) -> Int64 {
        try w.bytes.withUnsafeBufferPointer { (value) throws(StoreError) in
            try set(w.key, kind: w.kind, value: value, ttl: w.ttl, shared: w.bytes, condition: w.condition)
        }
    }

    /// `set` for a value lent as bytes (a request's own): they are copied
    /// only if the memory tier keeps the entry.
    @discardableResult
    public func set(_ key: EntryKey, kind: Entry.Kind, value: UnsafeBufferPointer<UInt8>, ttl: Int64?,
                    condition: WriteCondition? = nil) throws(StoreError) -> Int64 {
        try set(key, kind: kind, value: value, ttl: ttl, shared: nil, condition: condition)
    }

    /// Stores `value`; `shared` is the same bytes as an array the memory tier
    /// can keep, if the caller has one. Otherwise the tier copies `value`
    /// after the row is written, not before: SQLite builds the row's record,
    /// a copy of its own, and a large value would be held three times over.
    /// `known`: the key's row, as the caller just read it.
    func set(_ key: EntryKey, kind: Entry.Kind, value: UnsafeBufferPointer<UInt8>, ttl: Int64?,
             shared: [UInt8]?, condition: WriteCondition?, known: (id: Int64, size: Int)? = nil) throws(StoreError) -> Int64 {
        if let condition, checksAsItWrites {
            let pending = try setChecked(key, kind: kind, value: value, ttl: ttl, condition: condition)
            return try settled(pending).revision
        }
        let joined = try joinWriteTransaction()
        try ready()
        try checkFits(value.count)
        if context.budget.maxBytes != nil { try context.budget.seeAllCaches() }
        var entry = Entry(kind: kind, bytes: shared ?? [], storedAt: context.clock.now, ttl: ttl)
        if config.persistent {
            // Unless joined above: another process made the cache persistent meanwhile.
            if !joined { try context.transactions.begin(changing: .entries) }
            let checked = try condition.map { (c) throws(StoreError) in try checkRow(c, key) }
            entry.revision = try context.revisions.nextStored()
            if checked?.inserting == true {
                try insertToDisk(key, &entry, value: value)
            } else {
                try writeToDisk(key, &entry, value: value, known: checked?.row ?? known)
            }
        } else {
            if let condition { _ = try check(condition, key) }
            entry.revision = context.revisions.nextLocal()
        }
        if fitsInMemory(value.count) {
            if shared == nil { entry.bytes = Array(value) }
            keepInMemory(key, entry)
        } else {
            memory.remove(key)
        }
        if config.persistent {
            try evictFromDisk()
            try context.budget.keepWithin()
        }
        return entry.revision
    }

    /// Stores all entries or none; returns their revisions, in order.
    @discardableResult
    public func set(_ writes: [Write]) throws(StoreError) -> [Int64] {
        if writes.count == 1 { return [try set(writes[0])] }
        _ = try joinWriteTransaction()
        try ready()
        for w in writes {
            try checkFits(w.bytes.count)
        }
        if context.budget.maxBytes != nil { try context.budget.seeAllCaches() }
        let now = context.clock.now
        var entries = writes.map { Entry(kind: $0.kind, bytes: $0.bytes, storedAt: now, ttl: $0.ttl) }
        // Every condition is checked before anything is written: one that
        // fails writes nothing of the call. An element's condition is on the
        // entry as it stood before the call.
        var inserting = [Bool](repeating: false, count: writes.count)
        for (k, w) in writes.enumerated() {
            guard let condition = w.condition else { continue }
            do throws(StoreError) { inserting[k] = try check(condition, w.key) } catch { throw .element(index: k, error: error) }
        }
        for k in entries.indices { entries[k].revision = try newRevision() }
        if config.persistent {
            let (count, bytes) = (diskCount, diskBytes)
            do {
                try context.transactions.atomically(changing: .entries) { () throws(StoreError) in
                    for k in writes.indices {
                        try writes[k].bytes.withUnsafeBufferPointer { (value) throws(StoreError) in
                            if inserting[k] {
                                do throws(StoreError) { try self.insertToDisk(writes[k].key, &entries[k], value: value) } catch {
                                    throw .element(index: k, error: error)
                                }
                            } else {
                                try self.writeToDisk(writes[k].key, &entries[k], value: value)
                            }
                        }
                    }
                }
            } catch {
                // The savepoint took back every row; the totals go back with them.
                (diskCount, diskBytes) = (count, bytes)
                context.diskWriter.savepointRolledBack(in: self)
                throw error
            }
        }
        for (k, w) in writes.enumerated() {
            if fitsInMemory(entries[k].size) { keepInMemory(w.key, entries[k]) } else { memory.remove(w.key) }
        }
        if config.persistent {
            try evictFromDisk()
            try context.budget.keepWithin()
        }
        return entries.map(\.revision)
    }

    /// A revision for an entry about to be written (a persistent cache's in
    /// the write transaction, which the write has joined).
    func newRevision() throws(StoreError) -> Int64 {
        config.persistent ? try context.revisions.nextStored() : context.revisions.nextLocal()
    }

    /// Writes an entry's row with `value` (over the row the memory tier knows
    /// for the key, if any), notes its row id in `e`, and counts it in the
    /// disk totals. SQLite reads `value` in place, without a copy of its own.
    func writeToDisk(_ k: EntryKey, _ e: inout Entry, value: UnsafeBufferPointer<UInt8>,
                     known: (id: Int64, size: Int)? = nil) throws(StoreError) {
        // After another writer's entries: its latest use too, so that this
        // row's counts as more recent than any of them (least recently used goes first).
        if totalsAreStale { try loadTotals() }
        noteChanged(k)
        schedulePurge(expiringAt: e.expiresAt(lifespan: config.lifespan))
        try context.diskWriter.write(k, &e, value: value, known: known, in: self)
    }

    /// Checks `condition` against the live entry under `k`, in the write
    /// transaction (a memory-only cache: in its memory tier), and throws
    /// `.conditionFailed` if it does not hold. On PostgreSQL a persistent
    /// cache's row is read, not its memory tier, which may lag other
    /// servers' writes, and read `FOR UPDATE`, so that no other server
    /// changes it before this transaction ends. On SQLite the write
    /// transaction has caught up with every other process's commits and
    /// holds the store's lock, so the memory tier holds what the row holds:
    /// an entry found there is not read again (the row's lookup was 12,200
    /// of the 40,300 instructions a conditional set took, callgrind). Returns whether the write must
    /// insert a new row and fail the condition if another server inserted
    /// one first: `ifAbsent` on PostgreSQL with no row found, which READ
    /// COMMITTED does not keep from appearing before the write.
    func check(_ condition: WriteCondition, _ k: EntryKey) throws(StoreError) -> Bool {
        try checkRow(condition, k).inserting
    }

    /// `check`, and the row it read on SQLite (its id and size), which the
    /// write then updates without looking the key up again: a conditional
    /// set of a key the memory tier lacks took 13,100 instructions more than
    /// a plain set, the row's lookup, and now takes fewer (callgrind, below).
    func checkRow(_ condition: WriteCondition, _ k: EntryKey) throws(StoreError) -> (inserting: Bool, row: (id: Int64, size: Int)?) {
        let found: (revision: Int64, expiresAt: Int64?)?
        var row: (id: Int64, size: Int)?
        let locking = context.database.dialect.pipelinesWrites
        if config.persistent {
            // The row's lock is waited for with nothing queued behind it.
            if locking {
                try context.diskWriter.settle()
                found = try disk.revision(of: k, locking: true, lifespan: config.lifespan).map { ($0.revision, $0.expiresAt) }
            } else if let e = memory.peek(k) {
                found = (e.revision, e.expiresAt(lifespan: config.lifespan))
            } else {
                let read = try disk.revision(of: k, locking: false, lifespan: config.lifespan)
                (found, row) = (read.map { ($0.revision, $0.expiresAt) }, read?.row)
            }
        } else {
            found = memory.peek(k).map { ($0.revision, $0.expiresAt(lifespan: config.lifespan)) }
        }
        let live = liveRevision(found)
        switch condition {
        case .revision(let expected):
            guard live == expected else { throw .conditionFailed(key: k.key, expected: "revision \(expected)", revision: live) }
        case .absent:
            guard live == nil else { throw .conditionFailed(key: k.key, expected: "no entry", revision: live) }
        }
        return (condition == .absent && found == nil && locking, row)
    }

    /// The revision of an entry `found` (with when it expires), if it is
    /// live: an expired entry is none, unless the cache returns expired entries.
    func liveRevision(_ found: (revision: Int64, expiresAt: Int64?)?) -> Int64? {
        found.flatMap { f in
            !config.returnsExpired && f.expiresAt.map { context.clock.now >= $0 } == true ? nil : f.revision
        }
    }

    /// Writes a new row for `k` (see `check`): if another server inserted
    /// one since the key was found absent, nothing is written and the
    /// condition fails with that row's revision.
    private func insertToDisk(_ k: EntryKey, _ e: inout Entry, value: UnsafeBufferPointer<UInt8>) throws(StoreError) {
        if totalsAreStale { try loadTotals() }
        try context.diskWriter.settle()
        guard let id = try disk.insert(k, e, value: value, used: context.recency.next(), lifespan: config.lifespan) else {
            let theirs = try disk.revision(of: k, locking: true, lifespan: config.lifespan)
            throw .conditionFailed(key: k.key, expected: "no entry", revision: theirs?.revision)
        }
        noteChanged(k)
        schedulePurge(expiringAt: e.expiresAt(lifespan: config.lifespan))
        e.diskID = id
        diskCount += 1
        diskBytes += value.count
    }

    /// Opens (or joins) the write transaction before a write reads anything
    /// it decides from: opening it catches up with other writers' commits
    /// (`Transactions.begin`), which may leave this cache to be read again,
    /// and `ready` must come after that. Returns whether it did (a
    /// memory-only cache writes nothing).
    func joinWriteTransaction() throws(StoreError) -> Bool {
        guard config.persistent else { return false }
        try context.transactions.begin(changing: .entries)
        return true
    }

    /// Notes for other writers that the entry `k` (nil: any entry) changed
    /// in the open transaction. An encrypted cache's keys are not written
    /// down in clear: any change to it is a change to the whole cache.
    func noteChanged(_ k: EntryKey?) {
        guard recordsChanges else { return }
        if let k, !config.encrypted { context.transactions.noteChange(cache: id, key: k) } else { context.transactions.noteChange(wholeCache: id) }
    }

    /// The row of the memory tier's entry at `position`, written by a queued
    /// statement whose answer (the row's id) has not come yet: it comes
    /// now. Were the read's use noted without it, the least recently used
    /// row evicted next could be the one just read. If sending fails, the
    /// transaction is doomed, its commit says so, and the use is moot.
    private func rowOfQueuedWrite(at position: Int) -> Int64 {
        try? context.diskWriter.settle()
        return memory.entry(at: position).diskID
    }

    func checkFits(_ size: Int) throws(StoreError) {
        let limit = config.persistent ? config.disk.maxBytes : config.memory.maxBytes
        let tier = config.persistent ? "disk" : "memory"
        if limit > 0 && size > limit {
            throw .invalidArgument(field: "value", reason: "\(size) bytes is more than the cache's \(tier).maxBytes (\(limit))")
        }
        if let budget = context.budget.maxBytes, config.persistent, config.kind == .cache, size > budget {
            throw .invalidArgument(field: "value", reason: "\(size) bytes is more than the store's whole budget (--max-store-bytes \(budget))")
        }
    }

    /// Whether the memory tier keeps an entry of `size` bytes. A memory-only
    /// cache keeps anything within `memory.maxBytes`; a persistent one only
    /// what is at most an eighth of it (8 MiB by default), and serves larger
    /// entries from disk. One entry then cannot push most of the tier out
    /// (a 60 MB value stored into the default tier emptied it of everything
    /// else), nor stay resident long after its last use. Its reads cost more
    /// time (8 MiB: about 10 ms from disk against 0.2 ms from memory, with
    /// the answers discarded) but no more memory; a client that rereads large
    /// values can raise `memory.maxBytes`.
    func fitsInMemory(_ size: Int) -> Bool {
        let limit = config.memory.maxBytes
        return limit == 0 || size <= (config.persistent ? limit / Self.largestShareOfMemory : limit)
    }

    /// The largest entry a persistent cache keeps in memory, as a fraction of `memory.maxBytes`.
    private static let largestShareOfMemory = 8

    /// Puts an entry that fits in the memory tier there, then evicts down to the limits.
    func keepInMemory(_ k: EntryKey, _ e: Entry) {
        if !config.persistent, let at = e.expiresAt(lifespan: config.lifespan) {
            nextMemoryExpiry = min(nextMemoryExpiry ?? at, at)
            schedulePurge(expiringAt: at)
        }
        memory.put(k, e)
        evictFromMemory()
    }

    func evictFromMemory() {
        // A memory-only cache loses what leaves its memory: expired entries go first.
        if !config.persistent, memoryIsOverLimits {
            _ = purgeExpiredFromMemory(before: context.clock.now, limit: Int.max)
        }
        memory.evict(toCount: config.memory.maxCount, bytes: config.memory.maxBytes) { k, entry in
            stats.memory.evictions += 1
            context.emit(.evicted(cache: name, group: k.group, key: k.key, tier: .memory, reason: .capacity, value: eventValue(entry)))
        }
    }

    /// What an event about `entry` carries: its value, if the subscriber asked for values.
    func eventValue(_ entry: Entry?) -> CacheEvent.Value? {
        guard let entry, context.eventValues?(name) == true else { return nil }
        return CacheEvent.Value(kind: entry.kind, bytes: entry.bytes)
    }

    /// The entry under `k` on disk, read only when an event about it will carry its value.
    private func entryForEvent(_ k: EntryKey) throws(StoreError) -> Entry? {
        guard context.onEvent != nil, context.eventValues?(name) == true else { return nil }
        do {
            return try disk.lookup(k)
        } catch .integrity {
            // A sealed value that no longer opens is removed all the same, reported without it.
            return nil
        }
    }

    func evictFromDisk() throws(StoreError) {
        let limits = config.disk
        func over() -> Bool {
            (limits.maxCount > 0 && diskCount > limits.maxCount) || (limits.maxBytes > 0 && diskBytes > limits.maxBytes)
        }
        guard config.persistent, isStale || totalsAreStale || over() else { return }
        try exactTotals()
        guard over() else { return }
        try context.recency.write()
        try context.transactions.begin(changing: .entries)
        // Expired entries go before valid ones, however recently used.
        let now = context.clock.now
        while over() {
            let expired = try disk.expiredFirst(at: now, limit: 64)
            if expired.isEmpty { break }
            for row in expired where over() { try removeFromDisk(row, reason: .expired) }
        }
        while over() {
            let batch = try disk.leastRecentlyUsed(limit: 64)
            if batch.isEmpty { break }
            for row in batch where over() {
                try removeFromDisk(row, reason: .capacity)
            }
        }
    }

    func removeFromDisk(_ row: (id: Int64, key: EntryKey, size: Int), reason: CacheEvent.Reason) throws(StoreError) {
        let removed = try entryForEvent(row.key)
        noteChanged(row.key)
        try disk.delete(id: row.id)
        context.recency.forget(row.id)
        diskCount -= 1
        diskBytes -= row.size
        memory.remove(row.key)
        stats.disk.evictions += 1
        context.emit(.evicted(cache: name, group: row.key.group, key: row.key.key, tier: .disk, reason: reason,
                            value: eventValue(removed)))
    }

    /// Removes an entry from every tier; true if there was one. Reported
    /// once (`removed`), whichever tiers held it.
    public func remove(_ k: EntryKey, ifRevision expected: Int64? = nil) throws(StoreError) -> Bool {
        if let expected {
            _ = try joinWriteTransaction()
            try ready()
            _ = try check(.revision(expected), k)
        }
        try ready()
        context.entriesChanged(.removed(cache: name, key: k))
        let fromMemory = memory.remove(k)
        guard config.persistent else {
            if let fromMemory { context.emit(.removed(cache: name, group: k.group, key: k.key, value: eventValue(fromMemory))) }
            return fromMemory != nil
        }
        guard let old = try disk.existing(k) else {
            if let fromMemory { context.emit(.removed(cache: name, group: k.group, key: k.key, value: eventValue(fromMemory))) }
            return fromMemory != nil
        }
        var removed = fromMemory
        if removed == nil { removed = try entryForEvent(k) }
        try context.transactions.begin(changing: .entries)
        noteChanged(k)
        try disk.delete(id: old.id)
        context.recency.forget(old.id)
        diskCount -= 1
        diskBytes -= old.size
        context.emit(.removed(cache: name, group: k.group, key: k.key, value: eventValue(removed)))
        return true
    }

    /// What `touch` found.
    public enum Touched: Sendable {
        case absent
        case touched
        /// It had expired but was still stored, and is valid again.
        case revived
    }

    /// Restarts an entry's lifetime from now (refreshes its validation), as
    /// Cashier's `refreshValidationOnObjectForKey` did: an entry that expired
    /// but is still stored (not yet purged or evicted) is revived.
    public func touch(_ k: EntryKey, ifRevision expected: Int64? = nil) throws(StoreError) -> Touched {
        if let expected {
            _ = try joinWriteTransaction()
            try ready()
            _ = try check(.revision(expected), k)
        }
        try ready()
        let now = context.clock.now
        var current = memory.peek(k)
        // A row written by a queued statement is known by its id only once that has run.
        if config.persistent && (current?.diskID ?? 0) == 0 { current = try disk.lookup(k) ?? current }
        guard let current else { return .absent }
        let expired = current.isExpired(at: now, lifespan: config.lifespan)
        memory.update(k) { $0.validatedAt = now }
        if config.persistent {
            try context.transactions.begin(changing: .entries)
            noteChanged(k)
            var touched = current
            touched.validatedAt = now
            try disk.touch(id: current.diskID, at: now, expiresAt: touched.expiresAt(lifespan: config.lifespan))
        }
        return expired ? .revived : .touched
    }

    /// Keys of a group in byte order, paged: at most `limit`, after `cursor`.
    public func keys(group: String, prefix: String, after cursor: String?, limit: Int) throws(StoreError) -> [String] {
        guard try readyToRead() else { return [] }
        let validAt: Int64? = config.returnsExpired ? nil : context.clock.now
        if config.persistent {
            return try disk.keys(group: group, prefix: prefix, after: cursor, limit: limit, validAt: validAt, lifespan: config.lifespan)
        }
        var keys = memory.keys(inGroup: group).compactMap { k -> String? in
            guard k.key.utf8.starts(with: prefix.utf8) else { return nil }
            if let cursor, !cursor.utf8.lexicographicallyPrecedes(k.key.utf8) { return nil }
            if let validAt, let e = memory.peek(k), e.isExpired(at: validAt, lifespan: config.lifespan) { return nil }
            return k.key
        }
        keys.sort { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        return Array(keys.prefix(limit))
    }

    /// Empties a tier (of one group, or all); returns how many entries went.
    public func clear(group: String?, tier: CacheEvent.Tier, appVersion: CacheEvent.VersionChange? = nil) throws(StoreError) -> Int {
        try ready(unlocking: group != nil)
        context.entriesChanged(.cleared(cache: name))
        let inMemory = memory.keys(inGroup: group)
        for k in inMemory { memory.remove(k) }
        var removed = inMemory.count
        if config.persistent && tier != .memory {
            // In the write transaction, so that a failed commit takes the clear back too.
            try context.transactions.begin(changing: .entries)
            noteChanged(nil)
            // Recency noted for rows about to go must not land on rows that reuse their ids.
            try context.recency.write()
            let gone = try disk.clear(group: group)
            diskCount -= gone.count
            diskBytes -= gone.bytes
            removed = gone.count
        }
        context.emit(.cleared(cache: name, group: group, tier: tier, appVersion: appVersion))
        return removed
    }

    /// Deletes expired entries (of one group, or all); returns how many. A
    /// durable store refuses: only the client's removals take its entries.
    public func purgeExpired(group: String?) throws(StoreError) -> Int {
        try ready()
        if config.kind == .store {
            throw .invalidArgument(field: "cache", reason: "\"\(name)\" is a durable store (kind \"store\"): its expired entries stay until removed (cache.remove, cache.clear) or revived (cache.touch)")
        }
        let now = context.clock.now
        if config.persistent {
            let rows = try disk.expired(at: now, lifespan: config.lifespan, group: group)
            if !rows.isEmpty { try context.transactions.begin(changing: .entries) }
            for row in rows { try removeFromDisk(row, reason: .expired) }
            return rows.count
        }
        var removed = 0
        // In key order, so that events come in the same order every time.
        let keys = memory.keys(inGroup: group).sorted {
            $0.group == $1.group ? $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) : $0.group.utf8.lexicographicallyPrecedes($1.group.utf8)
        }
        for k in keys {
            guard let e = memory.peek(k), e.isExpired(at: now, lifespan: config.lifespan) else { continue }
            memory.remove(k)
            removed += 1
            stats.memory.evictions += 1
            context.emit(.evicted(cache: name, group: k.group, key: k.key, tier: .memory, reason: .expired, value: eventValue(e)))
        }
        return removed
    }

    /// Removes at most `limit` entries expired longer ago than the cache's
    /// purge grace (`purgeExpiredAfter`), soonest expired first, each with its
    /// `cache.evicted` (`expired`); returns how many. Nothing when the cache
    /// keeps expired entries.
    public func purgeExpired(limit: Int) throws(StoreError) -> Int {
        try ready()
        guard let grace = config.purgeGrace else { return 0 }
        let before = context.clock.now - grace
        if config.persistent {
            let rows = try disk.expiredFirst(at: before, limit: limit)
            if rows.isEmpty { return 0 }
            try context.recency.write()
            try context.transactions.begin(changing: .entries)
            for row in rows { try removeFromDisk(row, reason: .expired) }
            return rows.count
        }
        return purgeExpiredFromMemory(before: before, limit: limit)
    }

    /// Puts the cache in the store's purge schedule for when an entry that
    /// expires at `at` is past the purge grace, unless it is due sooner
    /// already (nil: the entry never expires).
    func schedulePurge(expiringAt at: Int64?) {
        guard let at, let grace = config.purgeGrace else { return }
        let (sum, overflow) = at.addingReportingOverflow(grace)
        let due = overflow ? Int64.max : sum
        if let purgeDue, purgeDue <= due { return }
        purgeDue = due
        context.purgeSchedule.add(self, at: due)
    }

    /// Has the next purge pass look at the cache: its entries may expire
    /// sooner than it knows (settings changed, another writer's entries).
    func purgeSoon() { schedulePurge(expiringAt: .min) }

    /// After a look of the purge that left nothing due: when something next can be.
    func scheduleNextPurge() throws(StoreError) {
        schedulePurge(expiringAt: config.persistent ? try disk.earliestExpiry() : nextMemoryExpiry)
    }

    /// A memory-only cache's entries expired at `before`, soonest first, at
    /// most `limit`. Looks at the entries only when `nextMemoryExpiry` says
    /// one can have expired, and leaves it at the earliest expiry still held.
    private func purgeExpiredFromMemory(before: Int64, limit: Int) -> Int {
        guard let due = nextMemoryExpiry, due <= before else { return 0 }
        var expired: [(at: Int64, key: EntryKey)] = []
        var earliestKept: Int64?
        for k in memory.keys() {
            guard let e = memory.peek(k), let at = e.expiresAt(lifespan: config.lifespan) else { continue }
            if at <= before { expired.append((at, k)) } else { earliestKept = min(earliestKept ?? at, at) }
        }
        expired.sort { $0.at != $1.at ? $0.at < $1.at : ($0.key.group, $0.key.key) < ($1.key.group, $1.key.key) }
        // Expired entries beyond `limit` stay, and the next look must find them.
        nextMemoryExpiry = expired.count > limit ? expired[limit].at : earliestKept
        for (_, k) in expired.prefix(limit) {
            let e = memory.remove(k)
            stats.memory.evictions += 1
            context.emit(.evicted(cache: name, group: k.group, key: k.key, tier: .memory, reason: .expired, value: eventValue(e)))
        }
        return min(expired.count, limit)
    }

    /// Entries and bytes held: the disk tier's for a persistent cache, the memory tier's otherwise.
    public var count: Int { config.persistent ? diskTotals.count : memory.count }
    public var bytes: Int { config.persistent ? diskTotals.bytes : memory.bytes }
    public var memoryCount: Int { memory.count }
    public var memoryBytes: Int { memory.bytes }
    /// Exact once queued writes have run (see `PipelinedDiskWriter`). If
    /// running them fails, the transaction is doomed, its commit will say
    /// so, and the totals are read again from the store after it.
    public var diskTotals: (count: Int, bytes: Int) {
        try? exactTotals()
        return (diskCount, diskBytes)
    }

    /// Makes `diskCount` and `diskBytes` exact: what was written answered
    /// (`DiskWriter.settle`), and the totals read again if another writer
    /// changed entries (the read sends any queued statement with it).
    func exactTotals() throws(StoreError) {
        if isStale {
            try reload()
        } else if totalsAreStale {
            try loadTotals()
        } else {
            try context.diskWriter.settle()
        }
    }
}

/// Counters since the process started.
public struct CacheUsage: Sendable {
    public struct Tier: Sendable {
        public var hits = 0
        public var misses = 0
        public var evictions = 0
    }
    public var memory = Tier()
    public var disk = Tier()
}

extension Cache {
    /// Another writer changed entries only, some of them this cache's
    /// (`LoadedCaches` tells only the caches a change names): those leave
    /// the memory tier, its totals are read again before they are next
    /// needed, and the purge looks at what it now holds.
    func storeChanged(elsewhere changes: ChangeRecord) {
        guard changes.touches(cache: id), config.persistent else { return }
        if changes.wholeCaches.contains(id) {
            memory.removeAll()
        } else {
            for k in changes.keys[id] ?? [] { memory.remove(k) }
        }
        totalsAreStale = true
        purgeSoon()
    }
}
