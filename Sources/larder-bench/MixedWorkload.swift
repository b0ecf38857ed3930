/// 90% gets and 10% sets of 100 B values over a Zipf (s = 1) key space ten
/// times larger than the default memory tier (10,000 entries).
extension Benchmark {
    func measureMixed() {
        let keyCount = plan.mixedKeys
        let title = "mixed 90% get / 10% set, Zipf s=1 over \(Format.count(keyCount)) keys, default memory tier (10,000)"
        Progress.note(title)
        let size = plan.valueSizes[0]
        let value = values[size]!
        let cache = "mixed"
        let s = session("mixed")
        defer { discard(s) }
        s.populate(cache: cache, keys: mixedKeys, count: keyCount, value: value, plan: plan)

        let zipf = Zipf(count: keyCount, exponent: 1.0)
        // Popularity rank → key, shuffled so hot keys are spread over the table.
        var shuffler = SplitMix64(seed: 41)
        let keyOfRank = Array(0..<keyCount).shuffled(using: &shuffler)
        func batch(_ count: Int, seed: UInt64) -> RequestBatch {
            var rng = SplitMix64(seed: seed)
            var encoder = RequestEncoder()
            var b = RequestBatch(reservingBytes: count * 130, requests: count)
            for _ in 0..<count {
                let key = keyOfRank[zipf.rank(&rng)]
                if rng.below(10) == 0 {
                    encoder.set(&b, cache: cache, keys: mixedKeys, key, value: value)
                } else {
                    encoder.get(&b, cache: cache, keys: mixedKeys, key)
                }
            }
            return b
        }
        let warm = batch(plan.warmup, seed: 42)
        let timed = batch(plan.ops, seed: 43)
        let strictBatch = batch(plan.extraStrictOps, seed: 44)
        _ = s.driver.pipelined(warm, window: plan.window)
        let before = s.stats(cache: cache)
        let rate = Statistics.rates(reps: plan.reps) { _ in (timed.count, s.driver.pipelined(timed, window: plan.window)) }
        s.driver.requireNoProblems("mixed pipelined")
        let (strictRate, latency) = strictSeries(s.driver, strictBatch, reps: plan.strictReps, what: "mixed strict", pid: s.child.pid)
        let delta = s.stats(cache: cache) - before
        let note = "memory-tier hit rate \(Format.fixed(delta.memoryHitRate * 100, 1))%"
            + " (the top 10,000 keys draw \(Format.fixed(zipf.share(ofTop: 10_000) * 100, 1))%)"
        report.add(Report.Row(key: "mixed.pipelined", label: "mixed, pipelined", opsPerSecond: rate,
                              ratio: pipeRateRatio(rate, valueSize: size), note: note), to: title)
        report.add(Report.Row(key: "mixed.strict", label: "mixed, strict\(opsTag(plan.extraStrictOps, plan.strictOps))", opsPerSecond: strictRate, latency: latency,
                              ratio: roundTripRatio(latency, valueSize: size)), to: title)
    }
}
