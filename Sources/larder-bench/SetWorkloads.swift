/// `cache.set` pipelined (answers released by group commit) and strict (one
/// commit per set), and `cache.setMany`; new keys on a fresh store for every
/// repetition, like the storage floor's inserts.
extension Benchmark {
    func measureSets() {
        let title = "cache.set / cache.setMany, new keys, fresh store per repetition (setMany: entries/s)"
        Progress.note(title)
        for size in plan.valueSizes {
            let value = values[size]!
            let label = Value.label(size)
            let cache = "set-\(Value.tag(size))"
            let ops = plan.writeOps(size)
            let reps = plan.writeReps(size)
            let warm = setBatch(cache: cache, keys: warmKeys, 0..<plan.warmup, count: plan.warmup, value: value)
            let batchedFloor = floors.insertBatched[size].map { f in
                { (rate: Spread) in Report.Ratio(kind: .share, value: rate.median / f.median, floor: "storage floor insert, 1,000 per transaction") }
            }

            do {
                let batch = setBatch(cache: cache, keys: setKeys, 0..<ops, count: ops, value: value)
                let rate = Statistics.rates(reps: reps) { rep in
                    let s = session("set-\(size)-\(rep)")
                    defer { discard(s) }
                    _ = s.driver.pipelined(warm, window: plan.window)
                    let ns = s.driver.pipelined(batch, window: plan.window)
                    s.driver.requireNoProblems("\(cache) pipelined sets")
                    return (batch.count, ns)
                }
                report.add(Report.Row(key: "set.\(Value.tag(size)).pipelined",
                                      label: "set \(label), pipelined (group commit)\(opsTag(ops, plan.ops))",
                                      opsPerSecond: rate, ratio: batchedFloor?(rate)), to: title)
            }

            do {
                let strictOps = size >= 1024 ? plan.extraStrictOps : plan.strictOps
                let batch = setBatch(cache: cache, keys: setKeys, 0..<strictOps, count: strictOps, value: value)
                var rates: [Double] = []
                var samples: [[UInt64]] = []
                var latencies: [UInt64] = []
                for rep in 0..<plan.strictReps {
                    let s = session("set-strict-\(size)-\(rep)")
                    _ = s.driver.pipelined(warm, window: plan.window)
                    let ns = pinned([s.child.pid]) { s.driver.strict(batch, latencies: &latencies) }
                    s.driver.requireNoProblems("\(cache) strict sets")
                    rates.append(Statistics.rate(batch.count, ns))
                    samples.append(latencies)
                    discard(s)
                }
                let rate = Spread(rates)
                let latency = Latency(perRepetition: samples)
                let ratio = floors.insertEach[size].map {
                    Report.Ratio(kind: .share, value: rate.median / $0.median, floor: "storage floor insert, 1 per transaction")
                }
                let rtt = roundTripRatio(latency, valueSize: 0).map { "p50 \(Format.fixed($0.value, 2))× pipe round trip" }
                report.add(Report.Row(key: "set.\(Value.tag(size)).strict",
                                      label: "set \(label), strict (a commit each)\(opsTag(strictOps, plan.strictOps))",
                                      opsPerSecond: rate, latency: latency, ratio: ratio, note: rtt), to: title)
            }

            do {
                let batch = setManyBatch(cache: cache, keys: setKeys, count: ops, value: value)
                let rate = Statistics.rates(reps: reps) { rep in
                    let s = session("setmany-\(size)-\(rep)")
                    defer { discard(s) }
                    _ = s.driver.pipelined(warm, window: plan.window)
                    let ns = s.driver.pipelined(batch, window: plan.callWindow)
                    s.driver.requireNoProblems("\(cache) setMany")
                    return (ops, ns)
                }
                report.add(Report.Row(key: "setMany.\(Value.tag(size))",
                                      label: "setMany \(label) (\(Format.count(plan.entriesPerCall))/call, \(plan.callWindow) in flight)\(opsTag(ops, plan.ops))",
                                      opsPerSecond: rate, ratio: batchedFloor?(rate)), to: title)
            }
        }
    }
}
