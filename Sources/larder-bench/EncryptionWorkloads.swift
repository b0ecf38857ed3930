/// The cost of encryption at rest (SPEC 6.10): the same requests sent to a
/// plain cache and to an encrypted one, each in a larder of its own on a
/// store of its own, repetitions alternating (and which of them goes first)
/// so that all meet the same machine. The memory tier holds values in clear,
/// so a memory hit should cost what a plain one does; a disk hit looks its
/// key up by HMAC and opens a sealed value, a set seals one.
extension Benchmark {
    /// The sessions' key for encrypted caches: 32 bytes, in base64.
    static let encryptionKey = "bGFyZGVyLWJlbmNoOiBhIDMyLWJ5dGUgdGVzdCBrZXk="

    func measureEncryption() {
        measureEncryptedGets(tier: "memory")
        measureEncryptedGets(tier: "disk")
        measureEncryptedSets()
    }

    /// `cache.get` hits from the memory tier, or from disk (a memory tier of
    /// one entry, as in the disk part), pipelined; from disk also strict.
    private func measureEncryptedGets(tier: String) {
        let memory = tier == "memory"
        let title = memory
            ? "encryption: cache.get memory-tier hits, plain vs encrypted cache (\(Format.count(plan.readKeys)) keys, memory tier unlimited)"
            : "encryption: cache.get disk hits, plain vs encrypted cache (\(Format.count(plan.readKeys)) keys, cache.open memory:{maxCount:1})"
        Progress.note(title)
        let variants = [Variant.plain, .encrypted]
        // Both larders hold the key: their caches differ only in `encrypted`.
        let sessions = variants.map { session("\(tier)-gets-\($0.key)", encryptionKey: Self.encryptionKey) }
        defer { sessions.forEach(discard) }
        for size in plan.valueSizes {
            let cache = "\(tier)-\(Value.tag(size))"
            for (s, v) in zip(sessions, variants) {
                s.openCache(cache, memory: memory ? #"{"maxCount":0,"maxBytes":0}"# : #"{"maxCount":1}"#, encrypted: v.encrypted)
                s.populate(cache: cache, keys: readKeys, count: plan.readKeys, value: values[size]!, plan: plan)
                s.probe(cache: cache, keys: readKeys, 0, tier: tier)
            }
            let warm = getBatch(cache: cache, keys: readKeys, keyCount: plan.readKeys, count: plan.warmup, seed: 51)
            let batch = getBatch(cache: cache, keys: readKeys, keyCount: plan.readKeys, count: plan.ops, seed: 52)
            for s in sessions { _ = s.driver.pipelined(warm, window: plan.window) }
            let before = sessions.map { $0.stats(cache: cache) }

            var tallies = [Tally](repeating: Tally(), count: variants.count)
            for rep in 0..<plan.reps {
                for k in Self.order(rep, variants.count) {
                    tallies[k].pipelined(sessions[k], batch, window: plan.window, operations: batch.count)
                }
            }
            for (s, v) in zip(sessions, variants) { s.driver.requireNoProblems("\(v.key) \(cache) pipelined gets") }

            // Disk hits one at a time, both larders pinned to the bench's CPU.
            var strict: [(rate: Spread, latency: Latency)] = []
            if !memory {
                let strictBatch = getBatch(cache: cache, keys: readKeys, keyCount: plan.readKeys, count: plan.extraStrictOps, seed: 53)
                var rates = [[Double]](repeating: [], count: variants.count)
                var samples = [[[UInt64]]](repeating: [], count: variants.count)
                var latencies: [UInt64] = []
                pinned(sessions.map { $0.child.pid }) {
                    for rep in 0..<plan.strictReps {
                        for k in Self.order(rep, variants.count) {
                            let ns = sessions[k].driver.strict(strictBatch, latencies: &latencies)
                            rates[k].append(Statistics.rate(strictBatch.count, ns))
                            samples[k].append(latencies)
                        }
                    }
                }
                for (s, v) in zip(sessions, variants) { s.driver.requireNoProblems("\(v.key) \(cache) strict gets") }
                strict = variants.indices.map { (Spread(rates[$0]), Latency(perRepetition: samples[$0])) }
            }

            // Every timed get must have been a hit in the intended tier
            // (a disk series sees a few memory hits: the same key twice in a row).
            let expected = plan.reps * batch.count + (memory ? 0 : plan.strictReps * plan.extraStrictOps)
            let hitNotes: [String?] = sessions.indices.map { k in
                let delta = sessions[k].stats(cache: cache) - before[k]
                let hits = memory ? delta.memoryHits : delta.diskHits
                let enough = memory ? hits == expected : Double(hits) >= 0.99 * Double(expected)
                return enough ? nil : "only \(Format.count(hits)) of \(Format.count(expected)) gets were \(tier) hits"
            }

            let label = Value.label(size)
            let key = "encryption.get.\(tier).\(Value.tag(size))"
            addComparison(variants, tallies, key: { "\(key).\($0).pipelined" }, label: { "get \(label), \($0), pipelined" },
                          operation: "get", notes: hitNotes, to: title)
            if !memory {
                let plainP50 = strict[0].latency.p50.median
                for (k, v) in variants.enumerated() {
                    let ratio = k == 0 ? nil : Report.Ratio(kind: .multiple, value: strict[k].latency.p50.median / plainP50,
                                                            floor: "the plain cache's p50 (\(Format.fixed(plainP50, 1)) µs), alternating")
                    report.add(Report.Row(key: "\(key).\(v.key).strict",
                                          label: "get \(label), \(v.label), strict\(opsTag(plan.extraStrictOps, plan.strictOps))",
                                          opsPerSecond: strict[k].rate, latency: strict[k].latency, ratio: ratio, note: hitNotes[k]), to: title)
                }
            }
        }
    }

    /// `cache.set` of new keys, pipelined, on a fresh store for every
    /// repetition as in the set part: into a persistent cache (the disk tier
    /// stores the value sealed) and into a memory-only one (nothing sealed).
    ///
    /// The set part's keys come in ascending order, so a plain cache appends
    /// to its index, while an encrypted cache's index holds HMACs of the keys,
    /// in random order: each insert lands on a page of its own. A plain cache
    /// sent the same keys shuffled shows how much of the difference that is.
    private func measureEncryptedSets() {
        let title = "encryption: cache.set pipelined, new keys, fresh store per repetition, plain vs encrypted cache (default memory tier)"
        Progress.note(title)
        for size in plan.valueSizes {
            let value = values[size]!
            let label = Value.label(size)
            let cache = "set-\(Value.tag(size))"
            let ops = plan.writeOps(size)
            let warm = setBatch(cache: cache, keys: warmKeys, 0..<plan.warmup, count: plan.warmup, value: value)
            let ascending = setBatch(cache: cache, keys: setKeys, 0..<ops, count: ops, value: value)
            var shuffler = SplitMix64(seed: 61)
            let shuffled = setBatch(cache: cache, keys: setKeys, Array(0..<ops).shuffled(using: &shuffler), count: ops, value: value)
            for persistent in [true, false] {
                let kind = persistent ? "persistent" : "memoryOnly"
                let variants = persistent ? [Variant.plain, .encrypted, .plainShuffled] : [.plain, .encrypted]
                var tallies = [Tally](repeating: Tally(), count: variants.count)
                for rep in 0..<plan.writeReps(size) {
                    for k in Self.order(rep, variants.count) {
                        let v = variants[k]
                        let s = session("\(kind)-sets-\(size)-\(v.key)-\(rep)", encryptionKey: Self.encryptionKey)
                        s.openCache(cache, memory: nil, persistent: persistent, encrypted: v.encrypted)
                        _ = s.driver.pipelined(warm, window: plan.window)
                        let batch = v.shuffled ? shuffled : ascending
                        tallies[k].pipelined(s, batch, window: plan.window, operations: batch.count)
                        s.driver.requireNoProblems("\(v.key) \(kind) \(cache) pipelined sets")
                        discard(s)
                    }
                }
                addComparison(variants, tallies, key: { "encryption.set.\(kind).\(Value.tag(size)).\($0).pipelined" },
                              label: { "set \(label), \(persistent ? "to disk" : "memory only"), \($0)\(self.opsTag(ops, self.plan.ops))" }, operation: "set", to: title)
            }
        }
    }

    /// A row for each variant, the first (the plain cache) the others'
    /// reference: their rates as a share of its rate, their CPU time beside
    /// its. `key` and `label` are given the variant's key and label.
    private func addComparison(_ variants: [Variant], _ tallies: [Tally], key: (String) -> String, label: (String) -> String,
                               operation: String, notes: [String?]? = nil, to title: String) {
        let plainCPU = tallies[0].cpuPerOperation
        for (k, v) in variants.enumerated() {
            var cpuNote: String?
            if let cpu = tallies[k].cpuPerOperation {
                cpuNote = "larder on a CPU \(Format.fixed(cpu, 2)) µs a \(operation)"
                if k > 0, let plainCPU {
                    cpuNote! += " (\(cpu >= plainCPU ? "+" : "")\(Format.fixed(cpu - plainCPU, 2)) µs)"
                }
            }
            let ratio = k == 0 ? nil : Report.Ratio(kind: .share, value: tallies[k].rate.median / tallies[0].rate.median,
                                                    floor: "the plain cache's rate, alternating")
            let note = [notes?[k], cpuNote].compactMap { $0 }.joined(separator: "; ")
            report.add(Report.Row(key: key(v.key), label: label(v.label), opsPerSecond: tallies[k].rate, ratio: ratio,
                                  note: note.isEmpty ? nil : note), to: title)
        }
    }

    /// The order of the variants in repetition `rep`: each goes first in
    /// turn, so that none always follows another's work on the machine.
    private static func order(_ rep: Int, _ count: Int) -> [Int] { (0..<count).map { ($0 + rep) % count } }
}

/// One of the caches compared.
private struct Variant {
    /// Its part of a row's key, and of its label.
    var key: String
    var label: String
    var encrypted: Bool
    /// Sets sent with their keys shuffled rather than ascending.
    var shuffled = false

    static let plain = Variant(key: "plain", label: "plain", encrypted: false)
    static let encrypted = Variant(key: "encrypted", label: "encrypted", encrypted: true)
    static let plainShuffled = Variant(key: "plainShuffledKeys", label: "plain, keys shuffled", encrypted: false, shuffled: true)
}

/// One variant's pipelined repetitions: their rates, and the time larder
/// spent on a CPU over them.
private struct Tally {
    var rates: [Double] = []
    var operations = 0
    /// Nanoseconds; nil when /proc could not tell.
    var cpu: UInt64? = 0

    mutating func pipelined(_ s: LarderSession, _ batch: RequestBatch, window: Int, operations n: Int) {
        let before = TextFile.cpuNanoseconds(pid: s.child.pid)
        let ns = s.driver.pipelined(batch, window: window)
        let after = TextFile.cpuNanoseconds(pid: s.child.pid)
        rates.append(Statistics.rate(n, ns))
        operations += n
        if let before, let after, let total = cpu { cpu = total + (after - before) } else { cpu = nil }
    }

    var rate: Spread { Spread(rates) }

    /// Microseconds of larder's CPU time per operation.
    var cpuPerOperation: Double? { cpu.map { Double($0) / Double(max(operations, 1)) / 1000 } }
}
