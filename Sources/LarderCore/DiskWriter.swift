import LarderStorage

/// How a cache's rows are written, chosen once per store by its engine
/// (`SQLDialect.pipelinesWrites`, asked once: on every set it cost a set to
/// disk about 170 instructions, callgrind). A cache asks it to write a row
/// and, before deciding anything from its totals, to make them exact; it
/// never asks whether the engine queues statements.
protocol DiskWriter: AnyObject {
    /// Writes `e`'s row with `value` (over `known`, the row just read for the
    /// key, else the row the memory tier knows for it, if any), notes its row
    /// id in `e` when known, and counts it in the cache's disk totals.
    func write(_ k: EntryKey, _ e: inout Entry, value: UnsafeBufferPointer<UInt8>, known: (id: Int64, size: Int)?,
               in cache: Cache) throws(StoreError)
    /// Makes every cache's totals, and the row ids the memory tiers hold,
    /// exact: what was written has been answered.
    func settle() throws(StoreError)
    /// A savepoint took back the rows `cache` wrote under it, and its totals
    /// were put back as they were before: whether they can be trusted.
    func savepointRolledBack(in cache: Cache)
}

/// SQLite: each statement runs and answers at once (a statement waited for
/// costs a function call), so the totals are always exact.
final class ImmediateDiskWriter: DiskWriter {
    func write(_ k: EntryKey, _ e: inout Entry, value: UnsafeBufferPointer<UInt8>, known: (id: Int64, size: Int)?,
               in cache: Cache) throws(StoreError) {
        let (id, replaced) = try cache.disk.write(k, e, value: value, used: cache.context.recency.next(), lifespan: cache.config.lifespan,
                                                  known: known ?? cache.memory.row(of: k))
        e.diskID = id
        cache.diskCount += replaced == nil ? 1 : 0
        cache.diskBytes += value.count - (replaced ?? 0)
    }

    func settle() {}

    func savepointRolledBack(in cache: Cache) {}
}

/// PostgreSQL: a row is written with the next statement whose answer is
/// needed, or the commit, so that a burst of sets is one round trip. Until
/// then the totals count what the memory tier knows (the size a known row
/// holds, else a new key): never less than the truth, so limits are only
/// checked against them after `settle`. The row's id and the size it really
/// replaced correct both when the answer comes.
final class PipelinedDiskWriter: DiskWriter {
    private let database: any SQLConnection

    init(database: any SQLConnection) {
        self.database = database
    }

    func write(_ k: EntryKey, _ e: inout Entry, value: UnsafeBufferPointer<UInt8>, known _: (id: Int64, size: Int)?,
               in cache: Cache) throws(StoreError) {
        let known = cache.memory.row(of: k)
        let assumed = known?.size
        // The closure keeps the cache until the statement has run (or the transaction failed).
        try cache.disk.writePipelined(k, e, value: value, used: cache.context.recency.next(), lifespan: cache.config.lifespan) { id, replaced in
            if replaced != assumed {
                cache.diskCount += (assumed == nil ? -1 : 0) + (replaced == nil ? 1 : 0)
                cache.diskBytes += (assumed ?? 0) - (replaced ?? 0)
            }
            cache.memory.update(k) { $0.diskID = id }
        }
        e.diskID = known?.id ?? 0
        cache.diskCount += assumed == nil ? 1 : 0
        cache.diskBytes += value.count - (assumed ?? 0)
    }

    func settle() throws(StoreError) {
        try database.settle()
    }

    /// Queued writes still report what they did before the savepoint undid
    /// it: the totals are read again.
    func savepointRolledBack(in cache: Cache) {
        cache.totalsAreStale = true
    }
}
