import LarderSystem

/// `cache.getOrFetch`: on hits it must cost what `cache.get` costs (the same
/// keys, measured alternately); a miss asks the client and waits for its
/// answer, two round trips and a commit, here with a client that answers at
/// once.
extension Benchmark {
    func measureFetches() {
        let size = 100
        let title = "cache.getOrFetch (\(Value.label(size)) values, \(Format.count(plan.readKeys)) keys, memory tier)"
        Progress.note(title)
        let s = session("fetches", capabilities: #"{"fetch":true}"#)
        defer { discard(s) }
        let value = values[size]!
        let cache = "fetch-\(Value.tag(size))"
        s.openCache(cache, memory: #"{"maxCount":0,"maxBytes":0}"#)
        s.populate(cache: cache, keys: readKeys, count: plan.readKeys, value: value, plan: plan)

        // Hits: the same key sequence through both methods, repetitions alternating.
        let gets = getBatch(cache: cache, keys: readKeys, keyCount: plan.readKeys, count: plan.ops, seed: 31)
        let fetches = getBatch(cache: cache, keys: readKeys, keyCount: plan.readKeys, count: plan.ops, seed: 31,
                               method: "cache.getOrFetch")
        _ = s.driver.pipelined(getBatch(cache: cache, keys: readKeys, keyCount: plan.readKeys, count: plan.warmup, seed: 30,
                                        method: "cache.getOrFetch"), window: plan.window)
        var getRates: [Double] = [], fetchRates: [Double] = []
        for _ in 0..<plan.reps {
            getRates.append(Statistics.rate(gets.count, s.driver.pipelined(gets, window: plan.window)))
            fetchRates.append(Statistics.rate(fetches.count, s.driver.pipelined(fetches, window: plan.window)))
        }
        s.driver.requireNoProblems("\(cache) pipelined gets and getOrFetch hits")
        let getRate = Spread(getRates), fetchRate = Spread(fetchRates)
        report.add(Report.Row(key: "fetch.hit.pipelined.get", label: "cache.get hits, pipelined (alternating)",
                              opsPerSecond: getRate), to: title)
        report.add(Report.Row(key: "fetch.hit.pipelined", label: "cache.getOrFetch hits, pipelined",
                              opsPerSecond: fetchRate,
                              ratio: Report.Ratio(kind: .share, value: fetchRate.median / getRate.median,
                                                  floor: "cache.get on the same keys, alternating")), to: title)

        let strictGets = getBatch(cache: cache, keys: readKeys, keyCount: plan.readKeys, count: plan.strictOps, seed: 32)
        let strictFetches = getBatch(cache: cache, keys: readKeys, keyCount: plan.readKeys, count: plan.strictOps, seed: 32,
                                     method: "cache.getOrFetch")
        var latencies: [UInt64] = []
        var getSamples: [[UInt64]] = [], fetchSamples: [[UInt64]] = []
        pinned([s.child.pid]) {
            for _ in 0..<plan.strictReps {
                _ = s.driver.strict(strictGets, latencies: &latencies)
                getSamples.append(latencies)
                _ = s.driver.strict(strictFetches, latencies: &latencies)
                fetchSamples.append(latencies)
            }
        }
        s.driver.requireNoProblems("\(cache) strict gets and getOrFetch hits")
        let getLatency = Latency(perRepetition: getSamples), fetchLatency = Latency(perRepetition: fetchSamples)
        report.add(Report.Row(key: "fetch.hit.strict", label: "cache.getOrFetch hits, strict", latency: fetchLatency,
                              ratio: Report.Ratio(kind: .multiple, value: fetchLatency.p50.median / getLatency.p50.median,
                                                  floor: "cache.get p50 on the same keys, alternating (\(Format.fixed(getLatency.p50.median, 1)) µs)")),
                   to: title)

        // Misses, one at a time: the request, the server's cache.fetch, the
        // client's answer, the result (after the commit that stores it).
        let misses = plan.extraStrictOps
        let missKeys = KeySpace("mi-")
        var encoder = RequestEncoder()
        var missNanoseconds: [UInt64] = []
        missNanoseconds.reserveCapacity(misses)
        var perRep: [Double] = []
        for rep in 0..<plan.strictReps {
            let start = MonotonicClock.nanoseconds()
            for n in 0..<misses {
                var line = RequestBatch()
                encoder.get(&line, cache: cache, keys: missKeys, rep * misses + n, method: "cache.getOrFetch")
                let t0 = MonotonicClock.nanoseconds()
                let ask = s.driver.exchange(line.bytes)
                guard let id = Self.requestID(in: ask) else {
                    Progress.fail("getOrFetch of a missing key: expected cache.fetch, got \(String(decoding: ask.prefix(300), as: UTF8.self))")
                }
                let answer = s.driver.exchange(Array(#"{"jsonrpc":"2.0","id":"#.utf8) + id + Array(#","result":{"value":"#.utf8)
                                               + value + Array("}}\n".utf8))
                missNanoseconds.append(MonotonicClock.nanoseconds() - t0)
                guard answer.firstRange(of: Array(#""fetched":true,"stored":true"#.utf8)) != nil else {
                    Progress.fail("getOrFetch of a missing key: \(String(decoding: answer.prefix(300), as: UTF8.self))")
                }
            }
            perRep.append(Statistics.rate(misses, MonotonicClock.nanoseconds() - start))
        }
        let missLatency = Latency(perRepetition: [missNanoseconds])
        report.add(Report.Row(key: "fetch.miss.strict", label: "cache.getOrFetch misses, the client answering at once",
                              opsPerSecond: Spread(perRep), latency: missLatency,
                              ratio: Report.Ratio(kind: .multiple, value: missLatency.p50.median / getLatency.p50.median,
                                                  floor: "a strict cache.get's p50: a miss is two round trips and a commit")),
                   to: title)
    }

    /// The id of the request in `line` (`"id":"larder-N"`), as JSON text.
    private static func requestID(in line: [UInt8]) -> [UInt8]? {
        let marker = Array(#""id":"#.utf8)
        guard let r = line.firstRange(of: marker) else { return nil }
        var end = r.upperBound
        guard end < line.count, line[end] == UInt8(ascii: "\"") else { return nil }
        end += 1
        while end < line.count, line[end] != UInt8(ascii: "\"") { end += 1 }
        guard end < line.count else { return nil }
        return Array(line[r.upperBound...end])
    }
}
