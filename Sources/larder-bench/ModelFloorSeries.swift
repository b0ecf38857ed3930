import LarderCore
import LarderJSON

/// The storage floors of the objects and entities series, measured when those
/// parts run, on the run's engine, in the storage floor's section.
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

    /// The statements `entity.upsert` runs for each call of `upserts`, taken
    /// from Larder's core itself: it applies every call in-process on a store
    /// of the run's engine, through a `StatementRecorder`, one transaction per
    /// call; then each repetition runs the recorded transactions again on a
    /// fresh store with the model defined.
    func measureEntityUpsertFloor(model definition: String, upserts: RequestBatch, records: Int) {
        let model: EntityModel
        do {
            model = try EntityModel(definition: try JSONParser.parse(definition))
        } catch {
            Progress.fail("the entity model does not parse: \(error)")
        }
        func defined(_ store: Store) {
            do {
                _ = try store.define(model)
                try store.commit()
            } catch {
                Progress.fail("entity floor: defining the model failed: \(error)")
            }
        }

        let recording = freshStore("floor-entities-recorded")
        let (store, recorder) = coreStore(on: recording)
        defined(store)
        recorder.isRecording = true
        for k in 0..<upserts.count {
            let p = upserts.params(k)
            guard let entity = p["entity"]?.stringValue, let batch = p["records"]?.arrayValue else {
                Progress.fail("entity.upsert request \(k) has no entity and records")
            }
            do {
                _ = try store.upsert(batch, entity: entity)
                try store.commit()
            } catch {
                Progress.fail("entity floor: Larder's core failed to upsert call \(k): \(error)")
            }
        }
        store.close()
        remove(recording)
        let transactions = recorder.transactions
        guard transactions.count == upserts.count else {
            Progress.fail("entity floor: \(upserts.count) calls recorded \(transactions.count) transactions")
        }

        let rate = Statistics.rates(reps: plan.modelReps) { rep in
            let target = freshStore("floor-entities-\(rep)")
            let made = coreStore(on: target).store
            defined(made)
            made.close()
            let f = storageFloor(on: target, madeByCore: true)
            defer { f.discard() }
            return (records, f.replay(transactions))
        }
        floors.entityUpsert = rate
        let statements = transactions.reduce(0) { $0 + $1.count }
        report.add(Report.Row(key: "floor.storage.entityUpsert",
                              label: "entity.upsert's statements, \(Format.count(plan.recordsPerCall)) per transaction",
                              opsPerSecond: rate,
                              note: "records/s; recorded from Larder's core: \(Format.count(statements)) statements in \(transactions.count) transactions"),
                   to: storageFloorTitle)
    }
}
