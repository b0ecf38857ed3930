/// Median and range of a few repetitions.
struct Spread {
    var median: Double
    var min: Double
    var max: Double

    init(_ samples: [Double]) {
        precondition(!samples.isEmpty)
        let s = samples.sorted()
        median = s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
        min = s.first!
        max = s.last!
    }

    init(median: Double, min: Double, max: Double) {
        self.median = median
        self.min = min
        self.max = max
    }

    init(single value: Double) { self.init(median: value, min: value, max: value) }

    /// Every figure multiplied by `k` (k > 0).
    func scaled(_ k: Double) -> Spread { Spread(median: median * k, min: min * k, max: max * k) }
}

/// Latency percentiles in microseconds: for each, the median over repetitions and its range.
struct Latency {
    var p50: Spread
    var p99: Spread
    var p999: Spread

    /// `perRepetition`: nanosecond samples of each repetition.
    init(perRepetition: [[UInt64]]) {
        var p50: [Double] = [], p99: [Double] = [], p999: [Double] = []
        for samples in perRepetition {
            let s = samples.sorted()
            p50.append(Statistics.percentile(s, 0.50) / 1000)
            p99.append(Statistics.percentile(s, 0.99) / 1000)
            p999.append(Statistics.percentile(s, 0.999) / 1000)
        }
        self.p50 = Spread(p50)
        self.p99 = Spread(p99)
        self.p999 = Spread(p999)
    }
}

enum Statistics {
    /// Nearest-rank percentile of sorted samples.
    static func percentile(_ sorted: [UInt64], _ q: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        let rank = Int((q * Double(sorted.count)).rounded(.up))
        return Double(sorted[min(max(rank - 1, 0), sorted.count - 1)])
    }

    static func rate(_ ops: Int, _ nanoseconds: UInt64) -> Double {
        Double(ops) / (Double(max(nanoseconds, 1)) / 1e9)
    }

    /// Runs `body` `reps` times; each returns (operations, nanoseconds).
    static func rates(reps: Int, _ body: (Int) -> (ops: Int, ns: UInt64)) -> Spread {
        Spread((0..<reps).map { rep in
            let (ops, ns) = body(rep)
            return rate(ops, ns)
        })
    }
}
