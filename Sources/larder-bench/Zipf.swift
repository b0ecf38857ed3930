#if canImport(Glibc)
import Glibc
#endif

/// Zipf-distributed ranks over 0..<count (rank 0 the most popular), by
/// inverting a precomputed cumulative distribution.
struct Zipf {
    private let cdf: [Double]

    init(count: Int, exponent s: Double = 1.0) {
        var c = [Double](repeating: 0, count: count)
        var sum = 0.0
        for k in 0..<count {
            sum += 1 / pow(Double(k + 1), s)
            c[k] = sum
        }
        for k in 0..<count { c[k] /= sum }
        cdf = c
    }

    func rank(_ rng: inout SplitMix64) -> Int {
        let u = rng.unit()
        var lo = 0, hi = cdf.count - 1
        while lo < hi {
            let mid = (lo + hi) / 2
            if cdf[mid] < u { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// The share of draws that fall on the `top` most popular ranks.
    func share(ofTop top: Int) -> Double { top >= cdf.count ? 1 : cdf[max(top - 1, 0)] }
}
