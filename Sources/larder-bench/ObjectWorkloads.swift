import LarderJSON
import LarderSystem

/// Typed objects: `object.put` of `Bench` objects at version 1, version 2
/// registered with a declarative migration, then a third of them read with
/// `object.get` (each migrated and written back on the way), the other
/// `plan.objects` migrated by `migrate.run`, and the first third read again,
/// now current. Every repetition starts from a fresh store.
extension Benchmark {
    static let objectCache = "objects"

    static let benchV1 = #"{"type":"Bench","version":"1","fields":{"title":"string","count":"integer","created":"date","tags":{"array":"string"},"note":"string"}}"#

    /// Renames title, turns the date into epoch seconds, removes note.
    static let benchV2 = #"{"type":"Bench","version":"2","fields":{"name":"string","count":"integer","created":"number","tags":{"array":"string"}},"#
        + #""migrations":[{"from":"1","steps":[{"op":"rename","from":"title","to":"name"},"#
        + #"{"op":"convert","field":"created","to":"epochSeconds"},{"op":"remove","field":"note"}]}]}"#

    func measureObjects() {
        let n = plan.objects
        let half = n / 2
        let total = n + half
        let title = "objects: Bench v1 → v2 (rename, date → epochSeconds, remove), \(Format.count(total)) objects, fresh store per repetition"
        Progress.note(title)
        let keys = KeySpace("ob-")
        let puts = objectPutBatch(keys: keys, count: total)
        // The first half, in a shuffled order.
        var shuffler = SplitMix64(seed: 61)
        let gets = objectGetBatch(keys: keys, Array(0..<half).shuffled(using: &shuffler))
        // object.get leaves the first half current; migrate.run migrates the rest.
        measureMigrateRunFloor(keys: keys, puts: puts, behind: half..<total)

        var putRates: [Double] = [], migratingRates: [Double] = [], currentRates: [Double] = []
        var runRates: [Double] = [], runSeconds: [Double] = []
        for rep in 0..<plan.modelReps {
            let s = session("objects-\(rep)")
            s.call("schema.register", params: Self.benchV1)
            let putNs = s.driver.pipelined(puts, window: plan.window)
            s.driver.requireNoProblems("object.put")
            putRates.append(Statistics.rate(total, putNs))

            s.call("schema.register", params: Self.benchV2)
            let getNs = s.driver.pipelined(gets, window: plan.window)
            s.driver.requireNoProblems("object.get (migrating)")
            migratingRates.append(Statistics.rate(gets.count, getNs))
            // Written back at version 2; the rest still at 1.
            requireObjectVersion(s, keys: keys, 0, "2")
            requireObjectVersion(s, keys: keys, total - 1, "1")

            let t0 = MonotonicClock.nanoseconds()
            let r = s.call("migrate.run", params: #"{"batchSize":\#(Self.migrateBatchSize)}"#)
            let runNs = MonotonicClock.nanoseconds() - t0
            func count(_ name: String) -> Int { r[name]?.numberValue?.int ?? -1 }
            guard count("examined") == total, count("migrated") == n, count("upToDate") == half,
                  count("failed") == 0, count("dropped") == 0 else {
                Progress.fail("migrate.run should have migrated \(n) of \(total) objects (\(half) up to date), answered \(r)")
            }
            runRates.append(Statistics.rate(n, runNs))
            runSeconds.append(Double(runNs) / 1e9)
            requireObjectVersion(s, keys: keys, total - 1, "2")

            let currentNs = s.driver.pipelined(gets, window: plan.window)
            s.driver.requireNoProblems("object.get (current)")
            currentRates.append(Statistics.rate(gets.count, currentNs))
            discard(s)
        }

        let migrating = Spread(migratingRates), current = Spread(currentRates)
        let getsLabel = "\(Format.count(half)) keys"
        report.add(Report.Row(key: "objects.put", label: "object.put v1, pipelined (\(Format.count(total)) objects)",
                              opsPerSecond: Spread(putRates)), to: title)
        report.add(Report.Row(key: "objects.get.migrating", label: "object.get, migrating + writing back (\(getsLabel))",
                              opsPerSecond: migrating,
                              note: "\(Format.fixed(migrating.median / current.median, 2)) of the rate once current"), to: title)
        report.add(Report.Row(key: "objects.get.current", label: "object.get, same keys, now current (\(getsLabel))",
                              opsPerSecond: current), to: title)
        let runRate = Spread(runRates)
        report.add(Report.Row(key: "objects.migrateRun", label: "migrate.run {batchSize:\(Self.migrateBatchSize)}, \(Format.count(n)) objects, obj/s",
                              opsPerSecond: runRate,
                              ratio: floors.migrateRun.map { Report.Ratio(kind: .share, value: runRate.median / $0.median, floor: "storage floor migrate.run") },
                              note: "it looks at all \(Format.count(total)), \(Format.count(half)) already current"), to: title)
        report.add(Report.Figure(key: "objects.migrateRun.seconds", label: "migrate.run wall time, \(Format.count(n)) objects",
                                 value: Spread(runSeconds), unit: "s", decimals: 3), to: title)
    }

    /// `cache.get` shows the version an object is stored at.
    private func requireObjectVersion(_ s: LarderSession, keys: KeySpace, _ k: Int, _ version: String) {
        let key = String(decoding: keys.key(k), as: UTF8.self)
        let r = s.call("cache.get", params: #"{"cache":"\#(Self.objectCache)","key":"\#(key)"}"#)
        guard r["found"]?.boolValue == true, r["version"]?.stringValue == version else {
            Progress.fail("object \(key) should be stored at Bench \(version), cache.get answered \(r)")
        }
    }

    /// `object.put` of keys 0..<count at Bench version 1.
    func objectPutBatch(keys: KeySpace, count: Int) -> RequestBatch {
        var encoder = RequestEncoder()
        var batch = RequestBatch(reservingBytes: count * 260, requests: count)
        for k in 0..<count {
            encoder.request(&batch, "object.put") { b in
                b.append(text: #"{"cache":""# + Self.objectCache + #"","key":""#)
                keys.append(k, to: &b)
                b.append(text: #"","type":"Bench","value":{"title":"Bench object "#)
                b.append(int: k)
                b.append(text: #"","count":"#)
                b.append(int: k)
                b.append(text: #","created":"#)
                b.append(date: 2020 + k % 7, 1 + k % 12, 1 + k % 28, seconds: k % 86_400)
                b.append(text: #","tags":["alpha","beta","gamma"],"note":"removed by version 2"}}"#)
            }
        }
        return batch
    }

    /// `object.get` of `numbers`, in that order.
    func objectGetBatch(keys: KeySpace, _ numbers: [Int]) -> RequestBatch {
        var encoder = RequestEncoder()
        var batch = RequestBatch(reservingBytes: numbers.count * 100, requests: numbers.count)
        for k in numbers {
            encoder.request(&batch, "object.get") { b in
                b.append(text: #"{"cache":""# + Self.objectCache + #"","key":""#)
                keys.append(k, to: &b)
                b.append(text: #""}"#)
            }
        }
        return batch
    }
}
