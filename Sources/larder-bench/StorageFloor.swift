/// A storage floor: Larder's own statements run straight against the engine
/// that holds the store, in-process (SQLite) or through libpq (PostgreSQL),
/// with no protocol and no sidecar in the way: what Larder could do at best.
/// Each floor has a store of its own, made fresh, removed by `discard`.
///
/// Every method runs `perTransaction` statements a transaction where it says
/// so, and returns the nanoseconds it took.
protocol StorageFloor: AnyObject {
    /// Inserts the entries of keys `numbers` (new ones): a `cache.set` each.
    func insert(keys: KeySpace, _ numbers: Range<Int>, value: [UInt8], perTransaction: Int) -> UInt64

    /// Looks up each key (all must exist) and reads its columns: a disk-tier `cache.get` each.
    func select(keys: KeySpace, _ numbers: [Int]) -> UInt64

    /// Stores `values[k]` as the object under key k, for every k; returns each one's row id.
    func insertObjects(keys: KeySpace, _ values: [[UInt8]], perTransaction: Int) -> [Int64]

    /// What `migrate.run` runs for each object of `numbers` that is behind:
    /// its lookup, and the update of its row (`ids[k]`) with `values[k]`.
    func migrate(keys: KeySpace, _ numbers: Range<Int>, ids: [Int64], values: [[UInt8]], perTransaction: Int) -> UInt64

    /// Runs the statements of each transaction a store recorded, in a transaction of its own.
    func replay(_ transactions: [RecordedTransaction]) -> UInt64

    /// Ends the floor's connection and removes its store.
    func discard()
}
