/// How much work each series does: the full run and the quick one.
struct Plan {
    var mode: String
    /// Operations per pipelined series.
    var ops: Int
    /// Operations per strict (request, wait, response) series.
    var strictOps: Int
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

    static let full = Plan(mode: "full", ops: 100_000, strictOps: 100_000, reps: 5, strictReps: 3, warmup: 10_000,
                           scaleTiers: [10_000, 100_000, 1_000_000], largestTierReps: 3)

    static let quick = Plan(mode: "quick", ops: 20_000, strictOps: 5_000, reps: 3, strictReps: 3, warmup: 2_000,
                            scaleTiers: [10_000, 100_000], largestTierReps: 3)
}
