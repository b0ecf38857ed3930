/// Floors measured at the start of the run, which Larder's figures are divided by.
struct Floors {
    /// Pipe floor, pipelined lines/s: short answers, and answers as long as a 10 KiB get's.
    var pipeRate: [Int: Spread] = [:]
    /// Pipe floor, strict round trips, by answer size as above.
    var pipeRoundTrip: [Int: Latency] = [:]
    /// Storage floor by value size: new keys 1,000 per transaction, one per transaction, SELECT by key.
    var insertBatched: [Int: Spread] = [:]
    var insertEach: [Int: Spread] = [:]
    var select: [Int: Spread] = [:]
    /// Storage floor by store size (100 B values).
    var scaleInsert: [Int: Spread] = [:]
    var scaleSelect: [Int: Spread] = [:]
    var scaleOverwrite: [Int: Spread] = [:]
    var scaleBytesPerEntry: [Int: Double] = [:]
    /// `migrate.run`'s statements (objects/s) and `entity.upsert`'s (records/s), when those parts run.
    var migrateRun: Spread?
    var entityUpsert: Spread?
}
