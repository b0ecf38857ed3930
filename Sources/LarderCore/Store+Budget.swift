/// The store-wide disk budget (`larder --max-store-bytes`): the values of all
/// persistent caches together stay within it. When a write takes them past
/// it, entries of purgeable caches are evicted — expired ones first, then the
/// least recently used across caches — with `cache.evicted` (`storeBudget`).
/// Durable stores are never evicted: when they alone exceed the budget, their
/// writes still succeed, and the budget reports itself exceeded.
extension Store {
    /// The budget and what the caches hold against it.
    public struct BudgetStatus: Sendable, Equatable {
        public let maxBytes: Int
        public let bytes: Int
        public var exceeded: Bool { bytes > maxBytes }
    }

    /// The budget's status; nil without one. Reads every cache's totals the
    /// first time and after another process's commit (as `cache.list` does).
    public func budgetStatus() throws(StoreError) -> BudgetStatus? {
        guard let maxStoreBytes else { return nil }
        try database.settle()
        return BudgetStatus(maxBytes: maxStoreBytes, bytes: try storedBytes())
    }

    /// Loads every cache once (and again after another process's commit):
    /// their totals add up to the store's, and loading each notes its most
    /// recent use, so that what this process writes next is more recent than
    /// anything another run wrote, in whichever cache.
    func seeAllCachesForBudget() throws(StoreError) {
        guard !budgetSeesAllCaches else { return }
        _ = try allCaches()
        budgetSeesAllCaches = true
    }

    private func storedBytes() throws(StoreError) -> Int {
        try seeAllCachesForBudget()
        var total = 0
        for c in caches.values where !c.isDropped && c.config.persistent {
            if c.isStale { try c.reload() } else if c.totalsAreStale { try c.loadTotals() }
            total += c.diskBytes
        }
        return total
    }

    /// Evicts entries of purgeable caches until the values stored fit the budget, or only durable stores remain.
    func keepWithinBudget() throws(StoreError) {
        guard let limit = maxStoreBytes else { return }
        guard try storedBytes() > limit else { return }
        // Totals are exact once queued writes have run (see `Cache.writeToDiskPipelined`).
        try database.settle()
        var total = try storedBytes()
        guard total > limit else { return }
        try writeRecency()
        try beginWrite(changing: .entries)
        // An encrypted cache this session holds no key for is left alone: the
        // keys its events would name cannot be read.
        let purgeable = caches.values.filter {
            !$0.isDropped && !$0.isRekeying && $0.config.persistent && $0.config.kind == .cache && (!$0.config.encrypted || $0.sealer != nil)
        }.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
        let now = clock.now
        for c in purgeable {
            while total > limit {
                let rows = try c.disk.expiredFirst(at: now, limit: 64)
                if rows.isEmpty { break }
                for row in rows where total > limit {
                    try c.removeFromDisk(row, reason: .expired)
                    total -= row.size
                }
            }
        }
        // Then the least recently used entry of all: each cache's oldest is
        // found by its recency index, and the oldest of those goes.
        while total > limit {
            var oldest: (cache: Cache, used: Int64)?
            for c in purgeable where c.diskCount > 0 {
                guard let used = try c.disk.leastUsed() else { continue }
                if oldest == nil || used < oldest!.used { oldest = (c, used) }
            }
            guard let (c, _) = oldest, let row = try c.disk.leastRecentlyUsed(limit: 1).first else { break }
            try c.removeFromDisk(row, reason: .storeBudget)
            total -= row.size
        }
    }
}

extension DiskTier {
    /// The recency of the cache's least recently used row; nil when it has none.
    func leastUsed() throws(StoreError) -> Int64? {
        let s = try db.statement("SELECT used FROM entries WHERE cache = ? ORDER BY used LIMIT 1")
        s.bind(1, cacheID)
        defer { s.reset() }
        return try s.step() ? s.int64(0) : nil
    }
}
