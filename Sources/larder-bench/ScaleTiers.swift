#if canImport(Glibc)
import Glibc
#endif

/// Gets and sets on stores holding 10k, 100k (and 1M) entries of 100 B, each
/// against the storage floor at the same size; on-disk bytes per entry.
extension Benchmark {
    func measureScale() {
        let title = "scale: stores of 100 B entries, uniform random keys, default memory tier (10,000)"
        Progress.note(title)
        let size = plan.valueSizes[0]
        let value = values[size]!
        let cache = "scale"
        for (k, entries) in plan.scaleTiers.enumerated() {
            let largest = k == plan.scaleTiers.count - 1
            let reps = largest ? plan.largestTierReps : plan.reps
            let strictReps = largest ? 1 : plan.strictReps
            let n = Format.count(entries)
            Progress.note("  \(n) entries: storage floor")
            measureStorageFloor(entries: entries, reps: reps, value: value)

            Progress.note("  \(n) entries: larder")
            let s = session("scale-\(entries)")
            let populateNS = s.populate(cache: cache, keys: scaleKeys, count: entries, value: value, plan: plan)
            let populate = Spread(single: Statistics.rate(entries, populateNS))
            s.probe(cache: cache, keys: scaleKeys, entries - 1, tier: "memory")

            let warm = getBatch(cache: cache, keys: scaleKeys, keyCount: entries, count: plan.warmup, seed: 31)
            let gets = getBatch(cache: cache, keys: scaleKeys, keyCount: entries, count: plan.ops, seed: 32)
            _ = s.driver.pipelined(warm, window: plan.window)
            let before = s.stats(cache: cache)
            let getRate = Statistics.rates(reps: reps) { _ in (gets.count, s.driver.pipelined(gets, window: plan.window)) }
            s.driver.requireNoProblems("scale \(n) gets")
            let delta = s.stats(cache: cache) - before

            let writes = keyNumbers(keyCount: entries, count: plan.ops, seed: 33)
            let sets = setBatch(cache: cache, keys: scaleKeys, writes, count: writes.count, value: value)
            let setRate = Statistics.rates(reps: reps) { _ in (sets.count, s.driver.pipelined(sets, window: plan.window)) }
            s.driver.requireNoProblems("scale \(n) sets")

            let strictGets = getBatch(cache: cache, keys: scaleKeys, keyCount: entries, count: plan.extraStrictOps, seed: 34)
            let (strictRate, latency) = strictSeries(s.driver, strictGets, reps: strictReps, what: "scale \(n) strict gets", pid: s.child.pid)
            // Resident memory of a client's sidecar between bursts: after a pause,
            // in which larder gives back what the series freed.
            usleep(200_000)
            if let rss = s.residentKiB { storeRSS.append((entries, rss)) }
            s.close()
            guard case .directory(let path) = s.store else { Progress.fail("the scale series measures a store directory") }
            let bytes = Double(ScratchDirectory.bytes(in: path)) / Double(entries)
            ScratchDirectory.remove(path)

            func share(_ rate: Spread, _ floor: Spread?, _ name: String) -> Report.Ratio? {
                floor.map { Report.Ratio(kind: .share, value: rate.median / $0.median, floor: name) }
            }
            report.add(Report.Row(key: "scale.\(entries).populate", label: "\(n): fill with setMany (entries/s)",
                                  opsPerSecond: populate,
                                  ratio: share(populate, floors.scaleInsert[entries], "storage floor insert, 1,000 per transaction")),
                       to: title)
            report.add(Report.Row(key: "scale.\(entries).get.pipelined", label: "\(n): get, pipelined", opsPerSecond: getRate,
                                  ratio: share(getRate, floors.scaleSelect[entries], "storage floor SELECT at \(n)"),
                                  note: "memory-tier hit rate \(Format.fixed(delta.memoryHitRate * 100, 1))%"), to: title)
            report.add(Report.Row(key: "scale.\(entries).get.strict", label: "\(n): get, strict\(opsTag(plan.extraStrictOps, plan.strictOps))", opsPerSecond: strictRate,
                                  latency: latency, ratio: roundTripRatio(latency, valueSize: size)), to: title)
            report.add(Report.Row(key: "scale.\(entries).set.pipelined", label: "\(n): set (overwrite), pipelined", opsPerSecond: setRate,
                                  ratio: share(setRate, floors.scaleOverwrite[entries], "storage floor upsert, 1,000 per transaction at \(n)")),
                       to: title)
            let floorBytes = floors.scaleBytesPerEntry[entries].map { "storage floor \(Format.fixed($0, 1)) B" }
            report.add(Report.Figure(key: "scale.\(entries).bytesPerEntry", label: "\(n): on-disk bytes per entry",
                                     value: Spread(single: bytes), unit: "B", decimals: 1, note: floorBytes), to: title)
        }
    }
}
