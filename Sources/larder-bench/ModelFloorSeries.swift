import LarderCore

/// The storage floors of the objects series, measured when that part runs,
/// on the run's engine, in the storage floor's section.
extension Benchmark {
    /// Objects `migrate.run` migrates per transaction (its `batchSize`).
    static let migrateBatchSize = 1000

    /// What `migrate.run` runs for each object behind: its lookup, then the
    /// update of its row with what the migration made of it; one transaction
    /// per batch. Larder's one SELECT per batch that lists the batch's keys
    /// (`DiskTier.objectKeys`) is left out: its text is the core's own, and
    /// it is one statement in 2,000. The bytes written back are the object's
    /// as stored: what the migration changes in them is larder's CPU work, and
    /// the row a few bytes longer.
    /// `puts`: the object.put requests of objects 0..<puts.count; `behind`: those migrate.run migrates.
    func measureMigrateRunFloor(keys: KeySpace, puts: RequestBatch, behind: Range<Int>) {
        let values = (0..<puts.count).map { k in
            let p = puts.params(k)
            guard let type = p["type"]?.stringValue, let value = p["value"],
                  let stored = try? StoredObject(untyped: type, version: "1", value: value) else {
                Progress.fail("object.put request \(k) holds no typed object")
            }
            return stored.json.encoded
        }
        let rate = Statistics.rates(reps: plan.modelReps) { rep in
            let f = storageFloor("migrate-\(rep)")
            defer { f.discard() }
            let ids = f.insertObjects(keys: keys, values, perTransaction: Self.migrateBatchSize)
            return (behind.count, f.migrate(keys: keys, behind, ids: ids, values: values, perTransaction: Self.migrateBatchSize))
        }
        floors.migrateRun = rate
        report.add(Report.Row(key: "floor.storage.migrateRun",
                              label: "migrate.run: lookup + update, \(Format.count(Self.migrateBatchSize)) per transaction",
                              opsPerSecond: rate, note: "objects/s, \(Format.count(behind.count)) of \(Format.count(values.count)) behind"),
                   to: storageFloorTitle)
    }
}
