/// How much work each series does: the full run and the quick one.
struct Plan {
    var mode: String
    /// Operations per repetition of a pipelined series.
    var ops: Int
    /// Operations per repetition of series that write 10 KiB values (each moves ops × 10 KiB).
    var bigWriteOps: Int
    /// Operations per repetition of the strict (request, wait, response) series the
    /// targets rest on: pipe round trip, memory get, set of 100 B.
    var strictOps: Int
    /// Operations per repetition of the other strict series (disk get, 10 KiB set,
    /// mixed, scale, one insert per transaction): a strict operation costs 10–200 µs.
    var extraStrictOps: Int
    /// Repetitions of each pipelined series (median and spread reported).
    var reps: Int
    /// Repetitions of each strict series, and of series that write 10 KiB values.
    var strictReps: Int
    /// Operations run untimed before a series.
    var warmup: Int
    /// Requests in flight in a pipelined series.
    var window = 1000
    /// Entries per `cache.setMany` call, and calls in flight.
    var entriesPerCall = 1000
    var callWindow = 4
    /// Keys read by the memory and disk get series.
    var readKeys = 10_000
    /// Key space of the mixed series: larger than the default memory tier (10,000).
    var mixedKeys = 100_000
    /// Store sizes of the scale series.
    var scaleTiers: [Int]
    /// Repetitions at the largest tier.
    var largestTierReps: Int
    /// Spawns measured for the cold start.
    var coldStarts = 31
    var valueSizes = [100, 10 * 1024]
    /// Objects `migrate.run` migrates in the objects series (half as many more are migrated by `object.get`).
    var objects = 100_000
    /// Bands of the entities series, each with `albumsPerBand` albums.
    var entityBands = 10_000
    var albumsPerBand = 9
    /// Records per `entity.upsert` / `entity.stage` call (calls in flight: `callWindow`).
    var recordsPerCall = 1_000
    /// Operations per repetition of the `entity.get` / `entity.query` series.
    var entityReadOps = 20_000
    /// Writes of each coherence series (under poll, a tenth).
    var coherenceWrites = 2_000
    /// Repetitions of the objects and entities write series, each on a fresh store.
    var modelReps = 3
    /// Bytes of the value stored and read back for the peak RSS of a large value.
    var largeValue = 60_000_000
    /// Caches loaded in the sidecar for the caches part: the fewest first, the figures of the others against it.
    var loadedCaches = [10, 100_000]
    /// Seconds the caches part leaves each sidecar idle to measure its CPU.
    var idleSeconds = 5

    static let full = Plan(mode: "full", ops: 100_000, bigWriteOps: 100_000, strictOps: 100_000, extraStrictOps: 20_000,
                           reps: 5, strictReps: 3, warmup: 10_000,
                           scaleTiers: [10_000, 100_000, 1_000_000], largestTierReps: 3)

    static let quick = Plan(mode: "quick", ops: 20_000, bigWriteOps: 5_000, strictOps: 5_000, extraStrictOps: 2_000,
                            reps: 3, strictReps: 3, warmup: 1_000, mixedKeys: 50_000,
                            scaleTiers: [10_000, 100_000], largestTierReps: 3,
                            objects: 20_000, entityBands: 1_000, entityReadOps: 5_000, coherenceWrites: 200,
                            largeValue: 16_000_000, loadedCaches: [10, 10_000], idleSeconds: 2)

    func writeOps(_ valueSize: Int) -> Int { valueSize >= 1024 ? bigWriteOps : ops }
    func writeReps(_ valueSize: Int) -> Int { valueSize >= 1024 ? strictReps : reps }
}
