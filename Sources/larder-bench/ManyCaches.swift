#if canImport(Glibc)
import Glibc
#endif

/// One cache's memory-tier gets and pipelined sets with 10 caches loaded in
/// the sidecar and with many (a client that names caches after its users),
/// and the sidecar's CPU while idle: what one request costs must not follow
/// how many caches are loaded, and an idle sidecar must do nothing.
extension Benchmark {
    func measureManyCaches() {
        let title = "caches loaded: 100 B memory-tier gets and pipelined sets of one cache, idle CPU"
        Progress.note(title)
        let value = values[plan.valueSizes[0]]!
        var fewest: (loaded: Int, get: Spread, set: Spread)?
        for loaded in plan.loadedCaches {
            let n = Format.count(loaded)
            Progress.note("  \(n) caches loaded")
            let s = session("caches-\(loaded)")
            defer { discard(s) }
            let openNS = openCaches(s, count: loaded, value: value)
            let cache = "measured"
            s.openCache(cache, memory: #"{"maxCount":0,"maxBytes":0}"#)
            s.populate(cache: cache, keys: readKeys, count: plan.readKeys, value: value, plan: plan)
            s.probe(cache: cache, keys: readKeys, 0, tier: "memory")

            let gets = getBatch(cache: cache, keys: readKeys, keyCount: plan.readKeys, count: plan.ops, seed: 51)
            _ = s.driver.pipelined(getBatch(cache: cache, keys: readKeys, keyCount: plan.readKeys, count: plan.warmup, seed: 52), window: plan.window)
            let getRate = Statistics.rates(reps: plan.reps) { _ in (gets.count, s.driver.pipelined(gets, window: plan.window)) }
            // Overwrites of keys the memory tier holds: each set writes its row, and a burst shares one commit.
            let sets = setBatch(cache: cache, keys: readKeys, keyNumbers(keyCount: plan.readKeys, count: plan.ops, seed: 53), count: plan.ops, value: value)
            let setRate = Statistics.rates(reps: plan.reps) { _ in (sets.count, s.driver.pipelined(sets, window: plan.window)) }
            s.driver.requireNoProblems("\(n) caches loaded: gets and sets")
            let idle = idleCPU(of: s, seconds: plan.idleSeconds)

            func slowdown(_ rate: Spread, _ few: Spread?) -> Report.Ratio? {
                few.map { Report.Ratio(kind: .multiple, value: $0.median / rate.median, floor: "time per request with \(Format.count(fewest!.loaded)) caches loaded") }
            }
            report.add(Report.Figure(key: "caches.\(loaded).open", label: "\(n) caches: open each, set one entry (caches/s)",
                                     value: Spread(single: Statistics.rate(loaded, openNS)), unit: "/s", decimals: 0), to: title)
            report.add(Report.Row(key: "caches.\(loaded).get.memory.pipelined", label: "\(n) caches: get, memory hit, pipelined",
                                  opsPerSecond: getRate, ratio: slowdown(getRate, fewest?.get)), to: title)
            report.add(Report.Row(key: "caches.\(loaded).set.pipelined", label: "\(n) caches: set (overwrite), pipelined",
                                  opsPerSecond: setRate, ratio: slowdown(setRate, fewest?.set)), to: title)
            if let idle {
                report.add(Report.Figure(key: "caches.\(loaded).idleCPU", label: "\(n) caches: CPU while idle \(plan.idleSeconds) s",
                                         value: Spread(single: idle * 100), unit: "% of a core", decimals: 2), to: title)
            }
            if fewest == nil { fewest = (loaded, getRate, setRate) }
        }
    }

    /// Opens `count` caches, each given one entry that expires in an hour (a
    /// user's session, say), pipelined; returns the nanoseconds it took.
    private func openCaches(_ s: LarderSession, count: Int, value: [UInt8]) -> UInt64 {
        var batch = RequestBatch(reservingBytes: count * (value.count + 160), requests: 2 * count)
        for i in 0..<count {
            let name = Array("user-\(i)".utf8)
            s.encoder.request(&batch, "cache.open") { $0 += Array(#"{"cache":""#.utf8) + name + Array(#""}"#.utf8) }
            s.encoder.request(&batch, "cache.set") {
                $0 += Array(#"{"cache":""#.utf8) + name + Array(#"","key":"session","ttl":3600,"value":"#.utf8) + value + [UInt8(ascii: "}")]
            }
        }
        let ns = s.driver.pipelined(batch, window: plan.window)
        s.driver.requireNoProblems("opening \(Format.count(count)) caches")
        return ns
    }

    /// The share of a core larder used (user and system time, /proc/PID/stat)
    /// over `seconds` with no request; nil when it cannot be read.
    private func idleCPU(of s: LarderSession, seconds: Int) -> Double? {
        guard let before = TextFile.cpuNanoseconds(pid: s.child.pid) else { return nil }
        usleep(UInt32(seconds) * 1_000_000)
        guard let after = TextFile.cpuNanoseconds(pid: s.child.pid) else { return nil }
        return Double(after - before) / (Double(seconds) * 1e9)
    }
}
