import LarderJSON

/// Which relationships to render as nested records, from include paths such
/// as `["albums", "members.musician"]`.
struct Inclusion: Sendable {
    /// By relationship name: what to include inside the related records.
    var children: [String: Inclusion] = [:]

    /// Reads include paths starting at `entity`; each segment is a relationship's JSON key (or model name).
    /// Relationships may form cycles (band → albums → band …): a path is
    /// walked recursively and every level renders nested records, so its
    /// length is bounded.
    static let maxDepth = 16

    init(paths: [String], from entity: EntityDefinition, in model: EntityModel) throws(StoreError) {
        for (k, path) in paths.enumerated() {
            let segments = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard segments.count <= Self.maxDepth else {
                throw .invalidArgument(field: "include[\(k)]", reason: "an include path may have at most \(Self.maxDepth) relationships")
            }
            try add(segments, from: entity, in: model, at: "include[\(k)]")
        }
    }

    init() {}

    private mutating func add(_ segments: [String], from entity: EntityDefinition, in model: EntityModel, at path: String) throws(StoreError) {
        guard let first = segments.first else { return }
        guard case .relationship(let r)? = entity.field(forKey: first) else {
            throw .invalidArgument(field: path, reason: "\(entity.name) has no relationship \"\(first)\"")
        }
        let relationship = entity.relationships[r]
        let destination = model.entity(named: relationship.destination)!
        var child = children[relationship.name] ?? Inclusion()
        try child.add(Array(segments.dropFirst()), from: destination, in: model, at: path)
        children[relationship.name] = child
    }
}

/// Reads records back as JSON in their model's casing and date format:
/// to-one relationships as the destination's identifier (or the record, when
/// included), to-many ones as the identifiers of the records whose inverse
/// points here, in identifier order (or the records, when included).
struct EntityRenderer {
    let database: any SQLConnection
    let model: EntityModel
    /// Records one request may render. Includes can follow cycles (band →
    /// albums → band …) and fan out at every level, so without a bound one
    /// short request could ask for an answer larger than memory.
    private let budget = Budget(records: 100_000)

    private final class Budget {
        var remaining: Int
        init(records: Int) { remaining = records }
    }

    init(database: any SQLConnection, model: EntityModel) {
        self.database = database
        self.model = model
    }

    /// The record with identifier `id`, or nil.
    func record(_ entity: EntityDefinition, id: ColumnValue, include: Inclusion) throws(StoreError) -> JSON? {
        let table = EntityTable(entity: entity)
        guard let row = try rows(entity, "WHERE \(table.identifierColumn) = ?", [id]).first else { return nil }
        return try render(entity, row: row, include: include)
    }

    /// Every row `clauses` selects, read completely before anything else runs
    /// (rendering one may need the same cached statement for another).
    func rows(_ entity: EntityDefinition, _ clauses: String, _ bindings: [ColumnValue]) throws(StoreError) -> [[ColumnValue]] {
        let table = EntityTable(entity: entity)
        let kinds = table.columnKinds
        let s = try database.statement("SELECT \(table.selectList) FROM \(table.name) \(clauses)")
        defer { s.reset() }
        for (k, v) in bindings.enumerated() { s.bind(Int32(k + 1), v) }
        var result: [[ColumnValue]] = []
        while try s.step() {
            result.append(kinds.enumerated().map { s.value(Int32($0.offset), as: $0.element) })
        }
        return result
    }

    func render(_ entity: EntityDefinition, row: [ColumnValue], include: Inclusion) throws(StoreError) -> JSON {
        budget.remaining -= 1
        guard budget.remaining >= 0 else {
            throw .invalidArgument(field: "include", reason: "the answer would hold more than 100000 records; include less, or page with entity.query")
        }
        var o = JSONObject()
        for (a, attribute) in entity.attributes.enumerated() {
            o.append(entity.attributeKeys[a], attribute.json(row[a], dates: model.dateFormat))
        }
        let id = row[entity.identifierIndex]
        var column = entity.attributes.count
        for (r, relationship) in entity.relationships.enumerated() {
            let destination = model.entity(named: relationship.destination)!
            let nested = include.children[relationship.name]
            let value: JSON
            if !relationship.toMany {
                let target = row[column]
                column += 1
                if let nested, !target.isNull {
                    value = try record(destination, id: target, include: nested) ?? .null
                } else {
                    value = EntityDefinition.json(target)
                }
            } else {
                let related = try relatedRows(destination, inverse: entity.inverseLinks[r]!, of: id, idsOnly: nested == nil)
                if let nested {
                    var records: [JSON] = []
                    for row in related { records.append(try render(destination, row: row, include: nested)) }
                    value = .array(records)
                } else {
                    value = .array(related.map { EntityDefinition.json($0[0]) })
                }
            }
            o.append(entity.relationshipKeys[r], value)
        }
        return .object(o)
    }

    /// Rows of `destination` whose to-one `inverse` holds `id`, by the index on that column.
    private func relatedRows(_ destination: EntityDefinition, inverse: String, of id: ColumnValue, idsOnly: Bool) throws(StoreError) -> [[ColumnValue]] {
        let table = EntityTable(entity: destination)
        let clauses = "WHERE \(EntityTable.quote(inverse)) = ? ORDER BY \(table.identifierColumn)"
        guard idsOnly else { return try rows(destination, clauses, [id]) }
        let s = try database.statement("SELECT \(table.identifierColumn) FROM \(table.name) \(clauses)")
        defer { s.reset() }
        s.bind(1, id)
        let kind = destination.identifierAttribute.kind
        var result: [[ColumnValue]] = []
        while try s.step() { result.append([s.value(0, as: kind)]) }
        return result
    }
}
