/// The storage floor series: Larder's tables and statements driven straight
/// against the run's engine (SQLite in-process, or PostgreSQL through libpq),
/// with the keys and values the Larder series use.
extension Benchmark {
    /// The storage floor's section of the report.
    var storageFloorTitle: String {
        postgres.map { PostgresFloor.title($0, perRoundTrip: plan.window) } ?? SQLiteFloor.title
    }

    func measureStorageFloor() {
        let title = storageFloorTitle
        Progress.note(title)
        for size in plan.valueSizes {
            let value = values[size]!
            let label = Value.label(size)
            let ops = plan.writeOps(size)

            // New keys, 1,000 per transaction: a fresh store per repetition, as the Larder set series get.
            let batched = Statistics.rates(reps: plan.writeReps(size)) { rep in
                let f = storageFloor("insert-\(size)-\(rep)")
                defer { f.discard() }
                _ = f.insert(keys: warmKeys, 0..<plan.warmup, value: value, perTransaction: plan.entriesPerCall)
                return (ops, f.insert(keys: setKeys, 0..<ops, value: value, perTransaction: plan.entriesPerCall))
            }
            floors.insertBatched[size] = batched
            report.add(Report.Row(key: "floor.storage.insert.batched.\(Value.tag(size))",
                                  label: "insert \(label), 1,000 per transaction\(opsTag(ops, plan.ops))", opsPerSecond: batched), to: title)

            do {
                let eachOps = plan.extraStrictOps
                let each = Statistics.rates(reps: plan.strictReps) { rep in
                    let f = storageFloor("insert1-\(size)-\(rep)")
                    defer { f.discard() }
                    _ = f.insert(keys: warmKeys, 0..<min(plan.warmup, 1000), value: value, perTransaction: 1)
                    return (eachOps, f.insert(keys: setKeys, 0..<eachOps, value: value, perTransaction: 1))
                }
                floors.insertEach[size] = each
                report.add(Report.Row(key: "floor.storage.insert.each.\(Value.tag(size))",
                                      label: "insert \(label), 1 per transaction\(opsTag(eachOps, plan.ops))", opsPerSecond: each), to: title)
            }

            // SELECT by key over as many rows as the Larder disk-get series reads, in the same key order.
            let f = storageFloor("select-\(size)")
            _ = f.insert(keys: readKeys, 0..<plan.readKeys, value: value, perTransaction: plan.entriesPerCall)
            _ = f.select(keys: readKeys, keyNumbers(keyCount: plan.readKeys, count: plan.warmup, seed: 21))
            let numbers = keyNumbers(keyCount: plan.readKeys, count: plan.ops, seed: 22)
            let select = Statistics.rates(reps: plan.reps) { _ in (numbers.count, f.select(keys: readKeys, numbers)) }
            f.discard()
            floors.select[size] = select
            report.add(Report.Row(key: "floor.storage.select.\(Value.tag(size))",
                                  label: "SELECT by key, \(label), \(Format.count(plan.readKeys)) rows", opsPerSecond: select), to: title)
        }
    }

    /// The storage floor at one store size (100 B values): building it, random
    /// SELECTs, random overwrites 1,000 per transaction, bytes per entry.
    func measureStorageFloor(entries: Int, reps: Int, value: [UInt8]) {
        let dir = scratch.child("floor-scale-\(entries)")
        let f = SQLiteFloor(directory: dir)
        let build = f.insert(keys: scaleKeys, 0..<entries, value: value, perTransaction: plan.entriesPerCall)
        floors.scaleInsert[entries] = Spread(single: Statistics.rate(entries, build))
        _ = f.select(keys: scaleKeys, keyNumbers(keyCount: entries, count: plan.warmup, seed: 31))
        let reads = keyNumbers(keyCount: entries, count: plan.ops, seed: 32)
        floors.scaleSelect[entries] = Statistics.rates(reps: reps) { _ in (reads.count, f.select(keys: scaleKeys, reads)) }
        let writes = keyNumbers(keyCount: entries, count: plan.ops, seed: 33)
        floors.scaleOverwrite[entries] = Statistics.rates(reps: reps) { _ in
            (writes.count, f.overwrite(keys: scaleKeys, writes, value: value, perTransaction: plan.entriesPerCall))
        }
        f.close()
        floors.scaleBytesPerEntry[entries] = Double(ScratchDirectory.bytes(in: dir)) / Double(entries)
        ScratchDirectory.remove(dir)
    }
}
