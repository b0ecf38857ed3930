import LarderStorage

/// Changing `persistent` on an existing cache, as Cashier lets an app flip
/// its `persistent` property: the entries move with it.
extension Cache {
    /// Applies `updated`, whose `persistent` differs from the cache's, with
    /// every other setting it changes. The settings and the rows are written
    /// in one savepoint: on an error nothing has changed. The limits are
    /// enforced afterwards by the eviction that follows every settings change.
    func changePersistence(to updated: CacheConfig) throws(StoreError) {
        if updated.persistent { try becomePersistent(updated) } else { try becomeMemoryOnly(updated) }
    }

    /// Memory-only → persistent: every entry of the memory tier is written to
    /// disk, least recently used first so that the disk tier's order of use is
    /// the memory tier's. An entry larger than `disk.maxBytes` could not have
    /// been stored there: it leaves the cache, reported as evicted from disk
    /// for capacity, instead of pushing out everything older than itself.
    private func becomePersistent(_ updated: CacheConfig) throws(StoreError) {
        let entries = memory.entriesNewestFirst().reversed()
        let limit = updated.disk.maxBytes
        var written: [(key: EntryKey, entry: Entry)] = []
        var oversized: [(key: EntryKey, entry: Entry)] = []
        let previous = config
        // `writeToDisk` computes expiry with the settings in force.
        config = updated
        do {
            try context.transactions.atomically { () throws(StoreError) in
                try save(updated)
                (diskCount, diskBytes) = try disk.totals()
                for (k, e) in entries {
                    if limit > 0 && e.size > limit {
                        oversized.append((k, e))
                        continue
                    }
                    var row = e
                    // A memory-only cache's revisions are the process's own (SPEC 6.14).
                    row.revision = try context.revisions.nextStored()
                    try e.bytes.withUnsafeBufferPointer { (value) throws(StoreError) in try writeToDisk(k, &row, value: value) }
                    written.append((k, row))
                }
            }
        } catch {
            config = previous
            (diskCount, diskBytes) = (0, 0)
            throw error
        }
        nextMemoryExpiry = nil
        // The memory tier now holds copies of rows, and only entries a persistent cache keeps in memory.
        for (k, e) in written {
            // A row id not known yet (0) comes when its queued statement has run.
            if !fitsInMemory(e.size) { memory.remove(k) } else { memory.update(k) { $0.diskID = e.diskID; $0.revision = e.revision } }
        }
        for (k, e) in oversized {
            memory.remove(k)
            stats.disk.evictions += 1
            context.emit(.evicted(cache: name, group: k.group, key: k.key, tier: .disk, reason: .capacity, value: eventValue(e)))
        }
    }

    /// Persistent → memory-only: the memory tier keeps the most recently used
    /// entries that its limits hold together — those it holds already, in
    /// their order, then the others by their last use on disk — skipping any
    /// larger than `memory.maxBytes`; every row is deleted, reported once as
    /// `cache.cleared` with `tier: "disk"`.
    private func becomeMemoryOnly(_ updated: CacheConfig) throws(StoreError) {
        // Reads noted since the last write count as uses, and must not land on rows that reuse these ids.
        try context.recency.write()
        var kept = Kept(limits: updated.memory)
        for (k, e) in memory.entriesNewestFirst() where !kept.isFull {
            if kept.admits(e.size) { kept.add(k, e) }
        }
        if !kept.isFull {
            let s = try context.database.statement("SELECT grp, key, size FROM entries WHERE cache = ? ORDER BY used DESC, id DESC")
            s.bind(1, id)
            defer { s.reset() }
            while !kept.isFull, try s.step() {
                let k = EntryKey(group: try s.string(0), key: try s.string(1))
                guard !memory.contains(k), kept.admits(try s.int(2)), let e = try disk.lookup(k) else { continue }
                kept.add(k, e)
            }
        }
        try context.transactions.atomically { () throws(StoreError) in
            try save(updated)
            _ = try disk.clear(group: nil)
        }
        config = updated
        (diskCount, diskBytes) = (0, 0)
        memory.removeAll()
        nextMemoryExpiry = nil
        for (k, e) in kept.entries.reversed() {
            var entry = e
            entry.diskID = 0
            // Its next revision, from the process's own, must not repeat one it had on disk.
            context.revisions.noteLocal(atLeast: entry.revision)
            if let at = entry.expiresAt(lifespan: updated.lifespan) { nextMemoryExpiry = min(nextMemoryExpiry ?? at, at) }
            memory.put(k, entry)
        }
        context.emit(.cleared(cache: name, group: nil, tier: .disk))
    }

    /// After another process (or a rollback) changed `persistent`: what this
    /// process holds belonged to the other kind of cache. A memory-only
    /// cache's entries here were this process's own and are not on disk; a
    /// persistent cache's were copies. Either way the cache starts over from
    /// what the store holds.
    func forgetTiers() {
        memory.removeAll()
        nextMemoryExpiry = nil
        (diskCount, diskBytes) = (0, 0)
    }

    /// The entries a memory tier of `limits` keeps, most recently used first.
    private struct Kept {
        let limits: CacheConfig.Limits
        private(set) var entries: [(key: EntryKey, entry: Entry)] = []
        private var bytes = 0
        /// The next entry that fits would be over a limit: nothing older is kept.
        private(set) var isFull = false

        init(limits: CacheConfig.Limits) { self.limits = limits }

        /// Whether an entry of `size` bytes is kept; one too large for the tier
        /// on its own is passed over, and one that no longer fits ends the keeping.
        mutating func admits(_ size: Int) -> Bool {
            if limits.maxBytes > 0 && size > limits.maxBytes { return false }
            if (limits.maxCount > 0 && entries.count >= limits.maxCount) || (limits.maxBytes > 0 && bytes + size > limits.maxBytes) {
                isFull = true
                return false
            }
            return true
        }

        mutating func add(_ k: EntryKey, _ e: Entry) {
            entries.append((k, e))
            bytes += e.size
            if limits.maxCount > 0 && entries.count >= limits.maxCount { isFull = true }
        }
    }
}
