import LarderJSON
import LarderSystem

/// What coordination costs next to the plain writes it guards: a set with
/// `ifRevision`, `cache.increment`, a transaction of 10 comparisons and 10
/// sets, and a lease taken and given back. Every series overwrites keys that
/// a `cache.setMany` stored first, on a fresh store of its own, so that each
/// pays for the same lookups of existing entries as the plain set it is
/// held against; the plain series and its guarded one alternate by
/// repetition.
extension Benchmark {
    func measureCoordination() {
        let title = "coordination: conditional sets, counters, transactions, leases (small integer values)"
        Progress.note(title)
        let cache = "coordination"
        let keys = KeySpace("co-")
        let zero = Array("0".utf8)
        let one = Array("1".utf8)
        let ops = plan.ops

        // Pipelined: plain overwrites, the same with `ifRevision`, increments.
        var plainRates: [Double] = [], conditionalRates: [Double] = [], incrementRates: [Double] = []
        let plain = setBatch(cache: cache, keys: keys, 0..<ops, count: ops, value: one)
        let increments = incrementBatch(cache: cache, keys: keys, count: ops)
        for rep in 0..<plan.reps {
            func series(_ name: String, _ body: (LarderSession) -> Double) -> Double {
                let s = session("coordination-\(name)-\(rep)")
                defer { discard(s) }
                s.openCache(cache, memory: nil)
                s.populate(cache: cache, keys: keys, count: ops, value: zero, plan: plan)
                return body(s)
            }
            plainRates.append(series("plain") { s in
                let rate = Statistics.rate(ops, s.driver.pipelined(plain, window: plan.window))
                s.driver.requireNoProblems("\(cache) pipelined sets")
                return rate
            })
            conditionalRates.append(series("conditional") { s in
                let batch = conditionalSetBatch(cache: cache, keys: keys, revisions: revisions(s, cache: cache, keys: keys, count: ops), value: one)
                let rate = Statistics.rate(ops, s.driver.pipelined(batch, window: plan.window))
                s.driver.requireNoProblems("\(cache) pipelined conditional sets")
                return rate
            })
            incrementRates.append(series("increment") { s in
                let rate = Statistics.rate(ops, s.driver.pipelined(increments, window: plan.window))
                s.driver.requireNoProblems("\(cache) pipelined increments")
                return rate
            })
        }
        let plainRate = Spread(plainRates)
        report.add(Report.Row(key: "coordination.set.pipelined", label: "cache.set of existing keys, pipelined",
                              opsPerSecond: plainRate), to: title)
        report.add(Report.Row(key: "coordination.conditionalSet.pipelined", label: "cache.set with ifRevision, pipelined",
                              opsPerSecond: Spread(conditionalRates),
                              ratio: .init(kind: .share, value: Spread(conditionalRates).median / plainRate.median,
                                           floor: "cache.set of existing keys, pipelined")), to: title)
        report.add(Report.Row(key: "coordination.increment.pipelined", label: "cache.increment, pipelined",
                              opsPerSecond: Spread(incrementRates),
                              ratio: .init(kind: .share, value: Spread(incrementRates).median / plainRate.median,
                                           floor: "cache.set of existing keys, pipelined")), to: title)

        measureTransactions(title: title, cache: cache, keys: keys, plainRate: plainRate)
        measureLeases(title: title, cache: cache, keys: keys)
    }

    /// A transaction comparing 10 entries' revisions and setting those 10,
    /// pipelined, against 20 plain sets: the transaction does the work of 10
    /// conditional sets in one request, so its time is held against that of
    /// the 20 requests a client would otherwise send (10 gets, 10 sets, here
    /// all sets).
    private func measureTransactions(title: String, cache: String, keys: KeySpace, plainRate: Spread) {
        let width = 10
        let transactions = plan.ops / (2 * width)
        var rates: [Double] = []
        for rep in 0..<plan.reps {
            let s = session("coordination-transaction-\(rep)")
            defer { discard(s) }
            s.openCache(cache, memory: nil)
            s.populate(cache: cache, keys: keys, count: transactions * width, value: Array("0".utf8), plan: plan)
            let revisions = revisions(s, cache: cache, keys: keys, count: transactions * width)
            var encoder = RequestEncoder()
            var batch = RequestBatch(reservingBytes: transactions * width * 110, requests: transactions)
            for t in 0..<transactions {
                encoder.request(&batch, "cache.transaction") { b in
                    b += Array(#"{"compare":["#.utf8)
                    for k in t * width..<(t + 1) * width {
                        if k != t * width { b.append(UInt8(ascii: ",")) }
                        b += Array(#"{"cache":""#.utf8) + Array(cache.utf8) + Array(#"","key":""#.utf8)
                        keys.append(k, to: &b)
                        b += Array(#"","revision":"#.utf8) + Array(String(revisions[k]).utf8) + [UInt8(ascii: "}")]
                    }
                    b += Array(#"],"then":["#.utf8)
                    for k in t * width..<(t + 1) * width {
                        if k != t * width { b.append(UInt8(ascii: ",")) }
                        b += Array(#"{"op":"set","cache":""#.utf8) + Array(cache.utf8) + Array(#"","key":""#.utf8)
                        keys.append(k, to: &b)
                        b += Array(#"","value":1}"#.utf8)
                    }
                    b += Array("]}".utf8)
                }
            }
            let ns = s.driver.pipelined(batch, window: max(1, plan.window / (2 * width)))
            s.driver.requireNoProblems("\(cache) pipelined transactions")
            rates.append(Statistics.rate(transactions, ns))
        }
        let rate = Spread(rates)
        // 20 plain sets take 20 / plainRate seconds; a transaction 1 / rate.
        report.add(Report.Row(key: "coordination.transaction.pipelined",
                              label: "cache.transaction, \(width) revisions compared + \(width) sets, pipelined (transactions/s)",
                              opsPerSecond: rate,
                              ratio: .init(kind: .share, value: rate.median * Double(2 * width) / plainRate.median,
                                           floor: "the time of \(2 * width) plain sets, pipelined")), to: title)
    }

    /// `lock.acquire` then `lock.release` with its token, one request at a
    /// time, against a strict `cache.set` of an existing key, alternating.
    private func measureLeases(title: String, cache: String, keys: KeySpace) {
        let rounds = plan.extraStrictOps
        let s = session("coordination-leases")
        defer { discard(s) }
        s.openCache(cache, memory: nil)
        s.populate(cache: cache, keys: keys, count: rounds, value: Array("0".utf8), plan: plan)
        var setSamples: [[UInt64]] = [], leaseSamples: [[UInt64]] = []
        pinned([s.child.pid]) {
            for rep in 0..<plan.strictReps {
                var sets: [UInt64] = [], leases: [UInt64] = []
                sets.reserveCapacity(rounds)
                leases.reserveCapacity(rounds)
                for n in 0..<rounds {
                    var line = RequestBatch()
                    s.encoder.set(&line, cache: cache, keys: keys, n, value: Array("1".utf8))
                    var t0 = MonotonicClock.nanoseconds()
                    let setAnswer = s.driver.exchange(line.bytes)
                    sets.append(MonotonicClock.nanoseconds() - t0)
                    guard setAnswer.firstRange(of: Array(#""revision":"#.utf8)) != nil else {
                        Progress.fail("strict set: \(String(decoding: setAnswer.prefix(300), as: UTF8.self))")
                    }
                    let name = "job-\(rep)-\(n % 100)"
                    t0 = MonotonicClock.nanoseconds()
                    let acquired = s.driver.exchange(s.encoder.line("lock.acquire", params: #"{"name":"\#(name)","ttl":30}"#))
                    guard acquired.firstRange(of: Array(#""acquired":true"#.utf8)) != nil,
                          let token = Self.integer(after: #""token":"#, in: acquired) else {
                        Progress.fail("lock.acquire: \(String(decoding: acquired.prefix(300), as: UTF8.self))")
                    }
                    let released = s.driver.exchange(s.encoder.line("lock.release", params: #"{"name":"\#(name)","token":\#(token)}"#))
                    leases.append(MonotonicClock.nanoseconds() - t0)
                    guard released.firstRange(of: Array(#""result""#.utf8)) != nil else {
                        Progress.fail("lock.release: \(String(decoding: released.prefix(300), as: UTF8.self))")
                    }
                }
                setSamples.append(sets)
                leaseSamples.append(leases)
            }
        }
        let setLatency = Latency(perRepetition: setSamples), leaseLatency = Latency(perRepetition: leaseSamples)
        report.add(Report.Row(key: "coordination.set.strict", label: "cache.set of an existing key, strict (alternating)",
                              latency: setLatency), to: title)
        report.add(Report.Row(key: "coordination.lease.strict", label: "lock.acquire + lock.release, strict",
                              latency: leaseLatency,
                              ratio: .init(kind: .multiple, value: leaseLatency.p50.median / setLatency.p50.median,
                                           floor: "strict cache.set p50 (\(Format.fixed(setLatency.p50.median, 1)) µs)")), to: title)
    }

    /// Each key's revision, read with `cache.getMany` (setup, untimed).
    private func revisions(_ s: LarderSession, cache: String, keys: KeySpace, count: Int) -> [Int] {
        var revisions: [Int] = []
        revisions.reserveCapacity(count)
        var n = 0
        while n < count {
            let upper = min(n + plan.entriesPerCall, count)
            let names = (n..<upper).map { "\"" + String(decoding: keys.key($0), as: UTF8.self) + "\"" }
            let entries = s.call("cache.getMany", params: #"{"cache":"\#(cache)","keys":[\#(names.joined(separator: ","))]}"#)["entries"]
            for k in n..<upper {
                guard let r = entries?[String(decoding: keys.key(k), as: UTF8.self)]?["revision"]?.numberValue?.int else {
                    Progress.fail("\(cache): no revision for key \(k)")
                }
                revisions.append(r)
            }
            n = upper
        }
        return revisions
    }

    private func conditionalSetBatch(cache: String, keys: KeySpace, revisions: [Int], value: [UInt8]) -> RequestBatch {
        var encoder = RequestEncoder()
        var batch = RequestBatch(reservingBytes: revisions.count * (value.count + 130), requests: revisions.count)
        for (n, revision) in revisions.enumerated() {
            encoder.request(&batch, "cache.set") { b in
                b += Array(#"{"cache":""#.utf8) + Array(cache.utf8) + Array(#"","key":""#.utf8)
                keys.append(n, to: &b)
                b += Array(#"","value":"#.utf8) + value + Array(#","ifRevision":"#.utf8) + Array(String(revision).utf8)
                b.append(UInt8(ascii: "}"))
            }
        }
        return batch
    }

    private func incrementBatch(cache: String, keys: KeySpace, count: Int) -> RequestBatch {
        var encoder = RequestEncoder()
        var batch = RequestBatch(reservingBytes: count * 110, requests: count)
        for n in 0..<count {
            encoder.request(&batch, "cache.increment") { b in
                b += Array(#"{"cache":""#.utf8) + Array(cache.utf8) + Array(#"","key":""#.utf8)
                keys.append(n, to: &b)
                b += Array(#""}"#.utf8)
            }
        }
        return batch
    }

    /// The integer after `member` in an answer line.
    static func integer(after member: String, in line: [UInt8]) -> Int? {
        guard let r = line.firstRange(of: Array(member.utf8)) else { return nil }
        var value = 0, any = false
        for byte in line[r.upperBound...] {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { break }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
            any = true
        }
        return any ? value : nil
    }
}
