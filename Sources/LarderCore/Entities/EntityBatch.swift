import LarderJSON
import LarderStorage

/// Records staged for one apply, grouped by entity in the order their
/// entities were first staged. A record staged twice (same identifier) is
/// merged: later members win, unmentioned ones stay.
public struct EntityBatch: Sendable {
    struct Group: Sendable {
        /// The entity as defined when its records were staged.
        var entity: EntityDefinition
        var records: [StagedRecord] = []
        /// Position in `records` by identifier.
        var positions: [ColumnValue: Int] = [:]
        /// Whether a record lists the members of a to-many relationship.
        var hasLists = false
    }

    /// A to-one relationship of an entity, by name.
    struct Link: Hashable {
        let entity: ExactString
        let relationship: String
    }

    private(set) var groups: [Group] = []
    /// The to-one relationships that a to-many list of the batch sets: the
    /// batch's own references along them are written again in order (`EntityStore.keepInverses`).
    private(set) var listedLinks: Set<Link> = []
    private var groupIndex: [ExactString: Int] = [:]
    /// Distinct records staged.
    public private(set) var count = 0

    public init() {}

    public var isEmpty: Bool { count == 0 }

    mutating func add(_ records: [StagedRecord], of entity: EntityDefinition) {
        let g: Int
        if let existing = groupIndex[ExactString(entity.name)] {
            g = existing
            if groups[g].entity != entity {
                // Redefined since the first records were staged: lay them out anew.
                let old = groups[g].entity
                groups[g].records = groups[g].records.map { $0.relaid(from: old, to: entity) }
                groups[g].entity = entity
            }
        } else {
            g = groups.count
            groups.append(Group(entity: entity))
            groupIndex[ExactString(entity.name)] = g
        }
        groups[g].records.reserveCapacity(groups[g].records.count + records.count)
        for r in records {
            for list in r.lists.keys {
                listedLinks.insert(Link(entity: ExactString(entity.relationships[list].destination), relationship: entity.inverseLinks[list]!))
                groups[g].hasLists = true
            }
            if let k = groups[g].positions[r.id] {
                groups[g].records[k].merge(r)
            } else {
                groups[g].positions[r.id] = groups[g].records.count
                groups[g].records.append(r)
                count += 1
            }
        }
    }

    /// Adds every record of `later` after this batch's own, merging as staging does.
    mutating func append(_ later: EntityBatch) {
        for g in later.groups { add(g.records, of: g.entity) }
    }

    /// True when the batch holds a record of `entity` with this identifier.
    func contains(_ entity: String, _ id: ColumnValue) -> Bool {
        guard let g = groupIndex[ExactString(entity)] else { return false }
        return groups[g].positions[id] != nil
    }
}

extension EntityStore {
    /// Converts `records` of `entity` and adds them to `batch`. Every record is
    /// checked first: on an error nothing is added.
    func stage(_ records: [JSON], entity name: String, into batch: inout EntityBatch) throws(StoreError) {
        let (model, entity) = try entity(name)
        var staged: [StagedRecord] = []
        staged.reserveCapacity(records.count)
        for (k, json) in records.enumerated() {
            staged.append(try entity.stagedRecord(from: json, at: k, dates: model.dateFormat))
        }
        batch.add(staged, of: entity)
    }

    /// Adds records to the store's staged batch, which accumulates until
    /// `applyStaged` or `discardStaged`. Returns how many distinct records are staged.
    @discardableResult
    func stage(_ records: [JSON], entity: String) throws(StoreError) -> Int {
        try stage(records, entity: entity, into: &staged)
        return staged.count
    }

    /// Applies everything staged in one transaction. On success the batch is
    /// emptied; on failure nothing is written and the batch stays, so missing
    /// records can be staged and the apply tried again (or the batch discarded).
    func applyStaged(onMissing: MissingReferencePolicy = .fail) throws(StoreError) -> ApplyResult {
        let result = try apply(staged, onMissing: onMissing)
        // Kept until the commit: if it fails, the batch is staged again rather than lost.
        staging.applied.append(staged)
        staged = EntityBatch()
        return result
    }

    /// Drops the staged batch; returns how many records it held.
    @discardableResult
    func discardStaged() -> Int {
        let n = staged.count
        staged = EntityBatch()
        return n
    }

    /// Stages `records` in a batch of their own and applies it; the store's staged batch is untouched.
    func upsert(_ records: [JSON], entity: String, onMissing: MissingReferencePolicy = .fail) throws(StoreError) -> ApplyResult {
        var batch = EntityBatch()
        try stage(records, entity: entity, into: &batch)
        return try apply(batch, onMissing: onMissing)
    }

    /// Applies a batch entirely or not at all. Pass 1 upserts every record by
    /// identifier, merging into existing ones (to-one columns included); pass
    /// 2 checks that every reference a record mentions leads to a record,
    /// looking in the batch first and then in the store.
    func apply(_ batch: EntityBatch, onMissing: MissingReferencePolicy = .fail) throws(StoreError) -> ApplyResult {
        var result = ApplyResult()
        guard !batch.isEmpty else { return result }
        let catalog = try currentEntityCatalog()
        for g in batch.groups where catalog.lookup(g.entity.name) == nil { throw .entityNotFound(g.entity.name) }
        let queued = QueuedUpserts()
        // Entity records are read from their tables every time: other writers hold nothing of them.
        try transactions.atomically(changing: .entries) { () throws(StoreError) in
            for g in batch.groups { try write(g, into: &result, queued: queued) }
            var unresolved: [UnresolvedReference] = []
            var found: [ExactString: [ColumnValue: Bool]] = [:]
            for g in batch.groups {
                try resolveLinks(of: g, in: batch, catalog: catalog, found: &found, onMissing: onMissing,
                                 result: &result, unresolved: &unresolved)
            }
            if !unresolved.isEmpty && onMissing == .fail { throw .unresolvedReferences(unresolved) }
            for g in batch.groups { try keepInverses(of: g, in: batch, catalog: catalog, found: found) }
        }
        // Queued upserts say whether each record was new once they have run.
        try database.settle()
        result.inserted += queued.inserted
        result.updated += queued.updated
        return result
    }

    /// What queued upserts (`SQLDialect.pipelinesWrites`) found, as their answers come.
    private final class QueuedUpserts {
        var inserted = 0
        var updated = 0
    }

    /// Pass 1 for one entity: insert what is new, merge into what exists.
    private func write(_ group: EntityBatch.Group, into result: inout ApplyResult, queued: QueuedUpserts) throws(StoreError) {
        let entity = group.entity
        let table = EntityTable(entity: entity)
        let toOne = entity.toOneIndexes
        let required = entity.attributes.indices.filter { !entity.attributes[$0].isOptional }
        var inserts: [[Bool]: any SQLStatement] = [:], updates: [[Bool]: any SQLStatement] = [:], upserts: [[Bool]: any SQLStatement] = [:]
        let pipelines = database.dialect.pipelinesWrites
        for record in group.records {
            // Which columns this record mentions: attributes, then to-one relationships.
            let shape = record.attributes.map { $0 != nil } + toOne.map { record.links[$0] != nil }
            let complete = required.allSatisfy { record.attributes[$0] != nil }
            // A complete record on an engine that pipelines: one upsert whose
            // answer (new or not) can wait, so that a batch is not a round trip per record.
            if complete && pipelines {
                let upsert = try statement(for: shape, in: &upserts) { upsertSQL(table, $0) }
                var k: Int32 = 1
                for case let v? in record.attributes { upsert.bind(k, v); k += 1 }
                for r in toOne { if let v = record.links[r] { upsert.bind(k, v); k += 1 } }
                try upsert.runPipelined { (row) throws(StoreError) in
                    if try row?.int(0) == 0 { queued.inserted += 1 } else { queued.updated += 1 }
                }
                continue
            }
            if complete {
                let insert = try statement(for: shape, in: &inserts) { insertSQL(table, $0) }
                var k: Int32 = 1
                for case let v? in record.attributes { insert.bind(k, v); k += 1 }
                for r in toOne { if let v = record.links[r] { insert.bind(k, v); k += 1 } }
                try insert.run()
                if database.changes == 1 {
                    result.inserted += 1
                    continue
                }
            }
            // The record exists (or is new and incomplete, which the update reveals).
            var setShape = shape
            setShape[entity.identifierIndex] = false
            let exists: Bool
            if setShape.contains(true) {
                let update = try statement(for: setShape, in: &updates) { updateSQL(table, $0) }
                var k: Int32 = 1
                for (a, v) in record.attributes.enumerated() where a != entity.identifierIndex {
                    if let v { update.bind(k, v); k += 1 }
                }
                for r in toOne { if let v = record.links[r] { update.bind(k, v); k += 1 } }
                update.bind(k, record.id)
                try update.run()
                exists = database.changes > 0
            } else {
                exists = try recordExists(table, record.id)
            }
            guard exists else {
                throw .incompleteRecord(entity: entity.name, id: EntityDefinition.json(record.id),
                                        missing: required.filter { record.attributes[$0] == nil }.map { entity.attributeKeys[$0] })
            }
            result.updated += 1
        }
    }

    /// Pass 2 for one entity: every reference mentioned must lead to a record.
    private func resolveLinks(of group: EntityBatch.Group, in batch: EntityBatch, catalog: EntityCatalog,
                              found: inout [ExactString: [ColumnValue: Bool]], onMissing: MissingReferencePolicy,
                              result: inout ApplyResult, unresolved: inout [UnresolvedReference]) throws(StoreError) {
        let entity = group.entity
        for r in entity.toOneIndexes {
            let relationship = entity.relationships[r]
            guard let destination = catalog.lookup(relationship.destination)?.entity else {
                throw .entityNotFound(relationship.destination)
            }
            let destinationTable = EntityTable(entity: destination)
            let key = ExactString(destination.name)
            for record in group.records {
                guard let target = record.links[r], !target.isNull else { continue }
                if try referenced(target, in: destinationTable, named: key, batch: batch, found: &found) {
                    result.linked += 1
                    continue
                }
                unresolved.append(UnresolvedReference(entity: entity.name, id: EntityDefinition.json(record.id),
                                                      relationship: relationship.name, destination: destination.name,
                                                      missingID: EntityDefinition.json(target)))
                if onMissing == .null {
                    let clear = try database.statement(
                        "UPDATE \(EntityTable(entity: entity).name) SET \(EntityTable.quote(relationship.name)) = NULL WHERE \(EntityTable(entity: entity).identifierColumn) = ?")
                    clear.bind(1, record.id)
                    try clear.run()
                    result.unresolved += 1
                }
            }
        }
        guard group.hasLists else { return }
        for (r, relationship) in entity.relationships.enumerated() where relationship.toMany {
            guard let destination = catalog.lookup(relationship.destination)?.entity else {
                throw .entityNotFound(relationship.destination)
            }
            let destinationTable = EntityTable(entity: destination)
            let key = ExactString(destination.name)
            for record in group.records {
                for member in record.lists[r] ?? [] {
                    if try referenced(member, in: destinationTable, named: key, batch: batch, found: &found) {
                        result.linked += 1
                        continue
                    }
                    unresolved.append(UnresolvedReference(entity: entity.name, id: EntityDefinition.json(record.id),
                                                          relationship: relationship.name, destination: destination.name,
                                                          missingID: EntityDefinition.json(member)))
                    // Left out of the list by pass 3.
                    if onMissing == .null { result.unresolved += 1 }
                }
            }
        }
    }

    /// Pass 3 for one entity: both sides of every relationship with an inverse
    /// agree, as Core Data keeps them. Records take effect in the batch's
    /// order, so a later record's side wins over an earlier one's:
    /// - a one-to-one reference set to a record also sets that record's
    ///   reference back, and clears the references that pointed at either of
    ///   them before;
    /// - a to-many list makes each record listed point back, and clears the
    ///   references of those it no longer lists;
    /// - a to-one reference whose inverse some list in the batch sets is
    ///   written again in its turn.
    /// A batch with none of these (most: a to-many side is usually derived)
    /// costs nothing here.
    private func keepInverses(of group: EntityBatch.Group, in batch: EntityBatch, catalog: EntityCatalog,
                              found: [ExactString: [ColumnValue: Bool]]) throws(StoreError) {
        let entity = group.entity
        let table = EntityTable(entity: entity)
        // Per relationship: how its side is kept, and the destination's side.
        var kept: [(r: Int, destination: EntityDefinition, inverse: String?, partnered: Bool)] = []
        for (r, relationship) in entity.relationships.enumerated() {
            guard let destination = catalog.lookup(relationship.destination)?.entity else {
                throw .entityNotFound(relationship.destination)
            }
            let inverse = entity.inverses[r]
            if relationship.toMany {
                if group.hasLists { kept.append((r, destination, inverse, false)) }
            } else if let inverse, let i = destination.relationshipIndex(inverse), !destination.relationships[i].toMany {
                kept.append((r, destination, inverse, true))
            } else if batch.listedLinks.contains(EntityBatch.Link(entity: ExactString(entity.name), relationship: relationship.name)) {
                kept.append((r, destination, nil, false))
            }
        }
        guard !kept.isEmpty else { return }
        func resolved(_ id: ColumnValue, in destination: EntityDefinition) -> Bool {
            batch.contains(destination.name, id) || found[ExactString(destination.name)]?[id] == true
        }
        for record in group.records {
            for (r, destination, inverse, partnered) in kept {
                let relationship = EntityTable.quote(entity.relationships[r].name)
                let other = EntityTable(entity: destination)
                if entity.relationships[r].toMany {
                    guard let members = record.lists[r], let inverse else { continue }
                    let back = EntityTable.quote(inverse)
                    let clear = try database.statement("UPDATE \(other.name) SET \(back) = NULL WHERE \(back) = ?")
                    clear.bind(1, record.id)
                    try clear.run()
                    let link = try database.statement("UPDATE \(other.name) SET \(back) = ? WHERE \(other.identifierColumn) = ?")
                    for member in members where resolved(member, in: destination) {
                        link.bind(1, record.id)
                        link.bind(2, member)
                        try link.run()
                    }
                    continue
                }
                guard let target = record.links[r] else { continue }
                let value = !target.isNull && resolved(target, in: destination) ? target : .null
                let own = try database.statement("UPDATE \(table.name) SET \(relationship) = ? WHERE \(table.identifierColumn) = ?")
                own.bind(1, value)
                own.bind(2, record.id)
                try own.run()
                guard partnered, let inverse else { continue }
                let back = EntityTable.quote(inverse)
                let leave = try database.statement("UPDATE \(other.name) SET \(back) = NULL WHERE \(back) = ?")
                leave.bind(1, record.id)
                try leave.run()
                guard !value.isNull else { continue }
                let rival = try database.statement(
                    "UPDATE \(table.name) SET \(relationship) = NULL WHERE \(relationship) = ? AND \(table.identifierColumn) <> ?")
                rival.bind(1, value)
                rival.bind(2, record.id)
                try rival.run()
                let partner = try database.statement("UPDATE \(other.name) SET \(back) = ? WHERE \(other.identifierColumn) = ?")
                partner.bind(1, record.id)
                partner.bind(2, value)
                try partner.run()
            }
        }
    }

    /// Whether the record `id` of the entity `name` (its table `table`) is
    /// in the batch or stored; what the store said is kept in `found`.
    private func referenced(_ id: ColumnValue, in table: EntityTable, named name: ExactString, batch: EntityBatch,
                            found: inout [ExactString: [ColumnValue: Bool]]) throws(StoreError) -> Bool {
        if batch.contains(table.entity.name, id) { return true }
        if let known = found[name]?[id] { return known }
        let exists = try recordExists(table, id)
        found[name, default: [:]][id] = exists
        return exists
    }

    func recordExists(_ table: EntityTable, _ id: ColumnValue) throws(StoreError) -> Bool {
        let s = try database.statement("SELECT 1 FROM \(table.name) WHERE \(table.identifierColumn) = ?")
        s.bind(1, id)
        defer { s.reset() }
        return try s.step()
    }

    /// The statement for a shape of mentioned columns, prepared once per apply:
    /// building its SQL text for every record would cost more than running it.
    private func statement(for shape: [Bool], in prepared: inout [[Bool]: any SQLStatement],
                           sql: ([Bool]) -> String) throws(StoreError) -> any SQLStatement {
        if let s = prepared[shape] { return s }
        let s = try database.statement(sql(shape))
        prepared[shape] = s
        return s
    }

    private func insertSQL(_ table: EntityTable, _ shape: [Bool]) -> String {
        let columns = zip(table.columns, shape).filter(\.1).map(\.0)
        return "INSERT INTO \(table.name) (\(columns.joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", "))) "
            + "ON CONFLICT (\(table.identifierColumn)) DO NOTHING"
    }

    /// The record inserted, or merged into the one with its identifier;
    /// answers 0 for a new record, 1 for one that was there (a statement
    /// does not see its own changes: the subquery finds the row as it was),
    /// no row when only the identifier is mentioned and the record was there.
    private func upsertSQL(_ table: EntityTable, _ shape: [Bool]) -> String {
        let columns = zip(table.columns, shape).filter(\.1).map(\.0)
        let merged = columns.filter { $0 != table.identifierColumn }
        let conflict = merged.isEmpty ? "DO NOTHING"
            : "DO UPDATE SET " + merged.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        return "INSERT INTO \(table.name) AS new (\(columns.joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", "))) "
            + "ON CONFLICT (\(table.identifierColumn)) \(conflict) "
            + "RETURNING (SELECT count(*) FROM \(table.name) AS before WHERE before.\(table.identifierColumn) = new.\(table.identifierColumn))"
    }

    private func updateSQL(_ table: EntityTable, _ shape: [Bool]) -> String {
        let columns = zip(table.columns, shape).filter(\.1).map(\.0)
        return "UPDATE \(table.name) SET \(columns.map { "\($0) = ?" }.joined(separator: ", ")) WHERE \(table.identifierColumn) = ?"
    }
}
