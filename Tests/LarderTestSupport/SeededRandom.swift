/// SplitMix64: a small seeded generator, so that a failing run (a crash
/// loop's workloads and kill points, a workload, random splits of input) can
/// be drawn again from its seed.
public struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in `range`.
    public mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &self) }

    /// True with probability `p`.
    public mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &self) < p }

    /// `count` distinct elements of `pool`, in random order.
    public mutating func distinct<T>(_ count: Int, of pool: [T]) -> [T] { Array(pool.shuffled(using: &self).prefix(count)) }
}
