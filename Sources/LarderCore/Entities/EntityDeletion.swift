import LarderJSON
import LarderStorage

/// What a delete did.
public struct DeleteResult: Equatable, Sendable {
    /// Records deleted: the one asked for and any its cascade rules reached.
    public var deleted = 0
    /// References to deleted records that were cleared (nullify rules).
    public var nullified = 0

    public init() {}
}

/// Deletes one record and applies every delete rule it reaches. References
/// into the record come from to-one relationships of other records; each is
/// governed by the rule of the relationship on this side that mirrors it
/// (nullify when there is none, so no reference is ever left dangling).
struct EntityDeletion {
    let database: any SQLConnection
    let model: EntityModel
    /// Records deleted or being deleted in this operation, so cycles end.
    private var doomed = Set<Doomed>()
    private var deleted = 0
    /// Records whose reference was cleared; those the cascade deletes later do not count.
    private var cleared = Set<Doomed>()

    var result: DeleteResult {
        var r = DeleteResult()
        r.deleted = deleted
        r.nullified = cleared.subtracting(doomed).count
        return r
    }

    private struct Doomed: Hashable {
        let entity: ExactString
        let id: ColumnValue
    }

    init(database: any SQLConnection, model: EntityModel) {
        self.database = database
        self.model = model
    }

    mutating func delete(_ entity: EntityDefinition, _ id: ColumnValue) throws(StoreError) {
        let table = EntityTable(entity: entity)
        guard doomed.insert(Doomed(entity: ExactString(entity.name), id: id)).inserted else { return }
        let renderer = EntityRenderer(database: database, model: model)
        guard let row = try renderer.rows(entity, "WHERE \(table.identifierColumn) = ?", [id]).first else { return }
        let label = EntityDefinition.json(id)

        // Outgoing to-one relationships: denied while the destination exists.
        var cascades: [(EntityDefinition, ColumnValue)] = []
        var column = entity.attributes.count
        for relationship in entity.relationships where !relationship.toMany {
            let target = row[column]
            column += 1
            guard !target.isNull, relationship.deleteRule != .nullify else { continue }
            let destination = model.entity(named: relationship.destination)!
            if isDoomed(destination, target) { continue }
            guard try recordExists(destination, target) else { continue }
            if relationship.deleteRule == .deny {
                throw .deleteDenied(entity: entity.name, id: label, relationship: relationship.name, related: 1)
            }
            cascades.append((destination, target))
        }

        // Incoming references, by the rule of the relationship that mirrors each.
        for source in model.entities {
            for link in source.relationships where !link.toMany && link.destination == entity.name {
                let rule = mirror(of: link, from: source, in: entity)
                let sourceTable = EntityTable(entity: source)
                let linkColumn = EntityTable.quote(link.name)
                let referrers = try identifiers(source, "WHERE \(linkColumn) = ?", id).filter { !isDoomed(source, $0) }
                guard !referrers.isEmpty else { continue }
                switch rule.deleteRule {
                case .deny:
                    throw .deleteDenied(entity: entity.name, id: label, relationship: rule.name, related: referrers.count)
                case .cascade:
                    for referrer in referrers { try delete(source, referrer) }
                case .nullify:
                    let s = try database.statement("UPDATE \(sourceTable.name) SET \(linkColumn) = NULL WHERE \(linkColumn) = ?")
                    s.bind(1, id)
                    try s.run()
                    for referrer in referrers { cleared.insert(Doomed(entity: ExactString(source.name), id: referrer)) }
                }
            }
        }

        let s = try database.statement("DELETE FROM \(table.name) WHERE \(table.identifierColumn) = ?")
        s.bind(1, id)
        try s.run()
        deleted += database.changes
        for (destination, target) in cascades { try delete(destination, target) }
    }

    /// The relationship of `entity` that mirrors `link` (a to-one of `source`
    /// leading to `entity`), whose delete rule governs it; nullify when none does.
    private func mirror(of link: Relationship, from source: EntityDefinition, in entity: EntityDefinition) -> Relationship {
        for (r, candidate) in entity.relationships.enumerated() where candidate.destination == source.name {
            if candidate.toMany, entity.inverseLinks[r] == link.name { return candidate }
            if !candidate.toMany, candidate.inverse == link.name || link.inverse == candidate.name { return candidate }
        }
        return Relationship(name: link.name, destination: source.name)
    }

    private func isDoomed(_ entity: EntityDefinition, _ id: ColumnValue) -> Bool {
        doomed.contains(Doomed(entity: ExactString(entity.name), id: id))
    }

    private func recordExists(_ entity: EntityDefinition, _ id: ColumnValue) throws(StoreError) -> Bool {
        let table = EntityTable(entity: entity)
        let s = try database.statement("SELECT 1 FROM \(table.name) WHERE \(table.identifierColumn) = ?")
        s.bind(1, id)
        defer { s.reset() }
        return try s.step()
    }

    private func identifiers(_ entity: EntityDefinition, _ clauses: String, _ value: ColumnValue) throws(StoreError) -> [ColumnValue] {
        let table = EntityTable(entity: entity)
        let s = try database.statement("SELECT \(table.identifierColumn) FROM \(table.name) \(clauses)")
        defer { s.reset() }
        s.bind(1, value)
        let kind = entity.identifierAttribute.kind
        var ids: [ColumnValue] = []
        while try s.step() { ids.append(try s.value(0, as: kind)) }
        return ids
    }
}

extension EntityStore {
    /// Deletes a record of `entity`, applying delete rules, entirely or not at
    /// all (a deny anywhere in a cascade refuses the whole delete).
    func deleteRecord(_ entity: String, id: JSON) throws(StoreError) -> DeleteResult {
        let (model, definition) = try self.entity(entity)
        guard let key = definition.identifierValue(id) else {
            throw .invalidArgument(field: "id", reason: "expected an identifier of \(entity) (\(definition.identifierAttribute.type.name)), got \(id.typeName)")
        }
        var deletion = EntityDeletion(database: database, model: model)
        // Entity records are read from their tables every time: other writers hold nothing of them.
        try transactions.atomically(changing: .entries) { () throws(StoreError) in try deletion.delete(definition, key) }
        return deletion.result
    }
}
