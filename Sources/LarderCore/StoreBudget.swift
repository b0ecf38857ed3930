import LarderStorage

/// The store-wide disk budget (`larder --max-store-bytes`): the values of all
/// persistent caches together stay within it. When a write takes them past
/// it, entries of purgeable caches are evicted — expired ones first, then the
/// least recently used across caches — with `cache.evicted` (`storeBudget`).
/// Durable stores are never evicted: when they alone exceed the budget, their
/// writes still succeed, and the budget reports itself exceeded.
final class StoreBudget {
    /// The bytes of values all persistent caches may hold together; nil: no budget.
    var maxBytes: Int?
    /// Every cache of the store is loaded, so their totals add up to the store's.
    private let seesAll = Derived(false)
    /// The caches the budget spans. Given once they are made: their context,
    /// made before them, holds the budget. The store owns both.
    unowned(unsafe) var caches: CacheRegistry!
    private let transactions: Transactions
    private let recency: RecencyLog
    private let clock: Clock

    init(transactions: Transactions, recency: RecencyLog, clock: Clock) {
        self.transactions = transactions
        self.recency = recency
        self.clock = clock
        transactions.observe(seesAll)
    }

    /// The budget's status; nil without one. Reads every cache's totals the
    /// first time and after another process's commit (as `cache.list` does).
    func status() throws(StoreError) -> Store.BudgetStatus? {
        guard let maxBytes else { return nil }
        try caches.context.diskWriter.settle()
        return Store.BudgetStatus(maxBytes: maxBytes, bytes: try storedBytes())
    }

    /// Loads every cache once (and again after another process's commit):
    /// their totals add up to the store's, and loading each notes its most
    /// recent use, so that what this process writes next is more recent than
    /// anything another run wrote, in whichever cache.
    func seeAllCaches() throws(StoreError) {
        guard !seesAll.value else { return }
        _ = try caches.all()
        seesAll.value = true
    }

    private func storedBytes() throws(StoreError) -> Int {
        try seeAllCaches()
        var total = 0
        for c in caches.loaded.byName.values where !c.isDropped && c.config.persistent {
            if c.isStale { try c.reload() } else if c.totalsAreStale { try c.loadTotals() }
            total += c.diskBytes
        }
        return total
    }

    /// Evicts entries of purgeable caches until the values stored fit the budget, or only durable stores remain.
    func keepWithin() throws(StoreError) {
        guard let limit = maxBytes else { return }
        guard try storedBytes() > limit else { return }
        // Totals are exact once what was written has answered.
        try caches.context.diskWriter.settle()
        var total = try storedBytes()
        guard total > limit else { return }
        try recency.write()
        try transactions.begin(changing: .entries)
        // An encrypted cache this session holds no key for is left alone: the
        // keys its events would name cannot be read.
        let purgeable = caches.loaded.byName.values.filter {
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
