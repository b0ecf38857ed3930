/// `cache.get` hits from the memory tier, or from disk (a cache whose memory
/// tier holds one entry), pipelined and strict.
extension Benchmark {
    func measureGets(tier: String) {
        let memory = tier == "memory"
        let title = memory
            ? "cache.get, memory-tier hits (\(Format.count(plan.readKeys)) keys, memory tier unlimited)"
            : "cache.get, disk hits (\(Format.count(plan.readKeys)) keys, cache.open memory:{maxCount:1})"
        Progress.note(title)
        let s = session("\(tier)-gets")
        defer { discard(s) }
        for size in plan.valueSizes {
            let value = values[size]!
            let cache = "\(tier)-\(Value.tag(size))"
            s.openCache(cache, memory: memory ? #"{"maxCount":0,"maxBytes":0}"# : #"{"maxCount":1}"#)
            s.populate(cache: cache, keys: readKeys, count: plan.readKeys, value: value, plan: plan)
            s.probe(cache: cache, keys: readKeys, 0, tier: tier)

            let strictOps = memory ? plan.strictOps : plan.extraStrictOps
            let warm = getBatch(cache: cache, keys: readKeys, keyCount: plan.readKeys, count: plan.warmup, seed: 21)
            let batch = getBatch(cache: cache, keys: readKeys, keyCount: plan.readKeys, count: plan.ops, seed: 22)
            let strictBatch = getBatch(cache: cache, keys: readKeys, keyCount: plan.readKeys, count: strictOps, seed: 23)
            _ = s.driver.pipelined(warm, window: plan.window)
            let before = s.stats(cache: cache)
            // Time larder spent on a CPU (user and kernel) tells whether it or the
            // exchange through the pipes is what limits the rate.
            let cpuBefore = TextFile.cpuNanoseconds(pid: s.child.pid)
            var wall: UInt64 = 0
            let rate = Statistics.rates(reps: plan.reps) { _ in
                let ns = s.driver.pipelined(batch, window: plan.window)
                wall += ns
                return (batch.count, ns)
            }
            var cpuNote: String?
            if let before = cpuBefore, let after = TextFile.cpuNanoseconds(pid: s.child.pid), wall > 0 {
                let perOp = Double(after - before) / Double(batch.count * plan.reps) / 1000
                cpuNote = "larder on a CPU \(Format.fixed(perOp, 2)) µs a get, \(Int(Double(after - before) * 100 / Double(wall)))% of the time"
            }
            s.driver.requireNoProblems("\(cache) pipelined gets")

            // Strict memory gets alternate repetitions with the pipe floor's, so
            // both see the same conditions.
            var strictRate: Spread
            var latency: Latency
            var rttRatio: Report.Ratio?
            if memory {
                let (echo, echoDriver) = spawnEcho(valueSize: size)
                var discarded: [UInt64] = []
                _ = echoDriver.strict(warm, latencies: &discarded)
                _ = s.driver.strict(warm, latencies: &discarded)
                var rates: [Double] = [], samples: [[UInt64]] = [], floorSamples: [[UInt64]] = []
                var latencies: [UInt64] = []
                pinned([echo.pid, s.child.pid]) {
                    for _ in 0..<plan.strictReps {
                        _ = echoDriver.strict(strictBatch, latencies: &latencies)
                        floorSamples.append(latencies)
                        let ns = s.driver.strict(strictBatch, latencies: &latencies)
                        rates.append(Statistics.rate(strictBatch.count, ns))
                        samples.append(latencies)
                    }
                }
                echoDriver.requireNoProblems("pipe floor")
                s.driver.requireNoProblems("\(cache) strict gets")
                echo.finish()
                strictRate = Spread(rates)
                latency = Latency(perRepetition: samples)
                let floor = Latency(perRepetition: floorSamples)
                rttRatio = Report.Ratio(kind: .multiple, value: latency.p50.median / floor.p50.median,
                                        floor: "pipe round trip p50 measured alternately (\(Format.fixed(floor.p50.median, 1)) µs)")
            } else {
                (strictRate, latency) = strictSeries(s.driver, strictBatch, reps: plan.strictReps, what: "\(cache) strict gets", pid: s.child.pid)
                rttRatio = roundTripRatio(latency, valueSize: size)
            }
            let delta = s.stats(cache: cache) - before

            // Every timed get must have been a hit in the intended tier
            // (a disk series sees a few memory hits: the same key twice in a row).
            let expected = plan.reps * batch.count + plan.strictReps * strictBatch.count
                + (memory ? plan.warmup : 0)
            let hits = memory ? delta.memoryHits : delta.diskHits
            let enough = memory ? hits == expected : Double(hits) >= 0.99 * Double(expected)
            let hitNote = enough ? nil : "only \(Format.count(hits)) of \(Format.count(expected)) gets were \(tier) hits"

            let label = Value.label(size)
            let pipelinedRatio = memory
                ? pipeRateRatio(rate, valueSize: size)
                : floors.select[size].map { Report.Ratio(kind: .share, value: rate.median / $0.median, floor: "storage floor SELECT") }
            let pipelinedNote = [hitNote, cpuNote].compactMap { $0 }.joined(separator: "; ")
            report.add(Report.Row(key: "get.\(tier).\(Value.tag(size)).pipelined", label: "get \(label), pipelined",
                                  opsPerSecond: rate, ratio: pipelinedRatio, note: pipelinedNote.isEmpty ? nil : pipelinedNote), to: title)
            report.add(Report.Row(key: "get.\(tier).\(Value.tag(size)).strict",
                                  label: "get \(label), strict\(opsTag(strictOps, plan.strictOps))",
                                  opsPerSecond: strictRate, latency: latency, ratio: rttRatio, note: hitNote), to: title)
        }
    }
}
