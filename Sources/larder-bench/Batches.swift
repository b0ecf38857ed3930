/// The pre-encoded request streams of each workload, built before timing.
extension Benchmark {
    /// `count` gets of keys drawn uniformly from 0..<keyCount.
    func getBatch(cache: String, keys: KeySpace, keyCount: Int, count: Int, seed: UInt64,
                  method: String = "cache.get") -> RequestBatch {
        var rng = SplitMix64(seed: seed)
        var encoder = RequestEncoder()
        var batch = RequestBatch(reservingBytes: count * 110, requests: count)
        for _ in 0..<count { encoder.get(&batch, cache: cache, keys: keys, rng.below(keyCount), method: method) }
        return batch
    }

    /// The key numbers `getBatch` with the same seed draws (for the storage floor).
    func keyNumbers(keyCount: Int, count: Int, seed: UInt64) -> [Int] {
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { _ in rng.below(keyCount) }
    }

    /// `count` sets of keys `numbers`.
    func setBatch(cache: String, keys: KeySpace, _ numbers: some Sequence<Int>, count: Int, value: [UInt8]) -> RequestBatch {
        var encoder = RequestEncoder()
        var batch = RequestBatch(reservingBytes: count * (value.count + 110), requests: count)
        for n in numbers { encoder.set(&batch, cache: cache, keys: keys, n, value: value) }
        return batch
    }

    /// Keys 0..<count in `cache.setMany` calls of `entriesPerCall`.
    func setManyBatch(cache: String, keys: KeySpace, count: Int, value: [UInt8]) -> RequestBatch {
        var encoder = RequestEncoder()
        var batch = RequestBatch(reservingBytes: count * (value.count + 40) + 256, requests: count / plan.entriesPerCall + 1)
        var n = 0
        while n < count {
            let upper = min(n + plan.entriesPerCall, count)
            encoder.setMany(&batch, cache: cache, keys: keys, n..<upper, value: value)
            n = upper
        }
        return batch
    }
}
