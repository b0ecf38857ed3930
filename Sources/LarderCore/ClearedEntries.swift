import LarderStorage

/// Which entries `Store.clear` removes.
public enum ClearedEntries: Sendable, Equatable {
    /// Every entry.
    case all
    /// Objects only: entries written by `object.put` (HMCache's `+clearCache`).
    case objects
    /// Plain entries only: JSON values and bytes (`cache.set`).
    case plain

    /// Whether an entry of `kind` is among them.
    func contains(_ kind: Entry.Kind) -> Bool {
        switch self {
        case .all: return true
        case .objects: return kind == .object
        case .plain: return kind != .object
        }
    }
}

extension CacheRegistry {
    /// Removes the chosen entries from every cache (durable stores only when
    /// `includingStores`), from every tier, each cache in one `cache.cleared`
    /// when something went from it. Schemas, entity models and entity records
    /// are not entries of a cache and are never touched. Returns every cache
    /// it cleared, by name, with how many entries went.
    func clear(_ entries: ClearedEntries, includingStores: Bool) throws(StoreError) -> [(cache: String, removed: Int)] {
        var removed: [(cache: String, removed: Int)] = []
        // A cache another app version's process claimed is not this process's to clear (6.9).
        for c in try all() where (includingStores || c.config.kind != .store) && c.supersededBy == nil {
            removed.append((c.name, try c.clear(entries)))
        }
        return removed
    }
}

extension Cache {
    /// Removes the chosen entries from every tier; returns how many (those on
    /// disk for a persistent cache, those in memory for a memory-only one),
    /// with one `cache.cleared` when there were any.
    public func clear(_ entries: ClearedEntries) throws(StoreError) -> Int {
        // Rows go by their kind, which is never sealed: an encrypted cache needs no key for it.
        try ready(unlocking: false)
        // Objects are never fetched: clearing them alone overtakes no fetch.
        if entries != .objects { context.entriesChanged(.cleared(cache: name)) }
        var removed = 0
        for k in memory.keys() {
            guard let e = memory.peek(k), entries.contains(e.kind) else { continue }
            memory.remove(k)
            removed += 1
        }
        if config.persistent {
            // In the write transaction, so that a failed commit takes the clear back too.
            try context.transactions.begin()
            // Recency noted for rows about to go must not land on rows that reuse their ids.
            try context.recency.write()
            let gone = try disk.clear(entries)
            diskCount -= gone.count
            diskBytes -= gone.bytes
            removed = gone.count
        }
        if removed > 0 {
            context.emit(.cleared(cache: name, group: nil, tier: .all, only: entries == .all ? nil : entries))
        }
        return removed
    }
}

extension DiskTier {
    /// Deletes the rows of the chosen entries; returns how many rows and bytes went.
    func clear(_ entries: ClearedEntries) throws(StoreError) -> (count: Int, bytes: Int) {
        // ?2: 1 for objects only, 0 for plain entries only, NULL for all.
        let only = "(CASE WHEN kind = \(Entry.Kind.object.rawValue) THEN 1 ELSE 0 END = ?2 OR ?2 IS NULL)"
        let totals = try db.statement("SELECT COUNT(*), CAST(COALESCE(SUM(size), 0) AS BIGINT) FROM entries WHERE cache = ?1 AND \(only)")
        let delete = try db.statement("DELETE FROM entries WHERE cache = ?1 AND \(only)")
        for s in [totals, delete] {
            s.bind(1, cacheID)
            switch entries {
            case .all: s.bindNull(2)
            case .objects: s.bind(2, 1)
            case .plain: s.bind(2, 0)
            }
        }
        _ = try totals.step()
        let result = (try totals.int(0), try totals.int(1))
        totals.reset()
        try delete.run()
        return result
    }
}
