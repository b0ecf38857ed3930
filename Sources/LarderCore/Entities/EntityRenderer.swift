import LarderJSON
import LarderStorage

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
    private let budget: Budget
    static let maxRecords = 100_000

    private final class Budget {
        var remaining: Int
        init(records: Int) { remaining = records }
    }

    /// `maxRecords` other than `EntityRenderer.maxRecords`: for tests of the bound.
    init(database: any SQLConnection, model: EntityModel, maxRecords: Int = EntityRenderer.maxRecords) {
        self.database = database
        self.model = model
        budget = Budget(records: maxRecords)
    }

    private func refusal() -> StoreError {
        .invalidArgument(field: "include", reason: "the answer would hold more than \(Self.maxRecords) records; include less, or page with entity.query")
    }

    // MARK: - The answer's size, before it is made

    /// Refuses an answer with includes that would hold more records than
    /// remain to render, before any is rendered: counted level by level, a
    /// query per relationship included and per 100 records, each record as
    /// many times as the answer would hold it. Found by rendering, a refusal
    /// took as many queries as records rendered: 100,000, 51 s on PostgreSQL.
    /// `ids` are the records asked for (those that do not exist count nothing).
    func refuseIfLarger(_ entity: EntityDefinition, ids: [ColumnValue], include: Inclusion) throws(StoreError) {
        guard !include.children.isEmpty else { return }
        var total = 0
        try count(entity, ids.reduce(into: [:]) { $0[$1, default: 0] += 1 }, include: include, total: &total)
    }

    /// Adds to `total` the records of `entity` among `times` (how many times
    /// the answer holds each), then those `include` nests in them.
    private func count(_ entity: EntityDefinition, _ times: [ColumnValue: Int], include: Inclusion, total: inout Int) throws(StoreError) {
        let limit = budget.remaining
        let table = EntityTable(entity: entity)
        let toOne = entity.toOneIndexes.filter { include.children[entity.relationships[$0].name] != nil }
        // The records that exist, and where their included to-one relationships lead.
        var found: [ColumnValue: Int] = [:]
        var targets = [[ColumnValue: Int]](repeating: [:], count: toOne.count)
        let columns = [table.identifierColumn] + toOne.map { EntityTable.quote(entity.relationships[$0].name) }
        let kinds = [entity.identifierAttribute.kind] + toOne.map { entity.linkKinds[$0]! }
        try select(columns, kinds, from: table, where: table.identifierColumn, in: Array(times.keys)) { row in
            let n = times[row[0]]!
            found[row[0]] = n
            total = min(total + n, limit + 1)
            for (k, target) in row.dropFirst().enumerated() where !target.isNull {
                targets[k][target] = min(targets[k][target, default: 0] + n, limit + 1)
            }
        }
        guard total <= limit else { throw refusal() }
        for (k, r) in toOne.enumerated() where !targets[k].isEmpty {
            let relationship = entity.relationships[r]
            try count(model.entity(named: relationship.destination)!, targets[k], include: include.children[relationship.name]!, total: &total)
        }
        for (r, relationship) in entity.relationships.enumerated() where relationship.toMany && !found.isEmpty {
            guard let nested = include.children[relationship.name] else { continue }
            let destination = model.entity(named: relationship.destination)!
            let destinationTable = EntityTable(entity: destination)
            var related: [ColumnValue: Int] = [:]
            try select([EntityTable.quote(entity.inverseLinks[r]!), destinationTable.identifierColumn],
                       [entity.identifierAttribute.kind, destination.identifierAttribute.kind],
                       from: destinationTable, where: EntityTable.quote(entity.inverseLinks[r]!), in: Array(found.keys)) { row in
                related[row[1]] = min(related[row[1], default: 0] + found[row[0]]!, limit + 1)
            }
            // Every related record exists: what it adds is known without reading it again.
            let added = related.values.reduce(0) { min($0 + $1, limit + 1) }
            if nested.children.isEmpty {
                total = min(total + added, limit + 1)
                guard total <= limit else { throw refusal() }
            } else {
                try count(destination, related, include: nested, total: &total)
            }
        }
    }

    /// Rows of `columns` (read as `kinds`) of `table` whose `key` is one of
    /// `values`, a statement per 100 values: always 100 parameters (NULL
    /// where there are fewer values), so that one statement text serves.
    private func select(_ columns: [String], _ kinds: [ColumnKind], from table: EntityTable, where key: String, in values: [ColumnValue],
                        _ body: ([ColumnValue]) -> Void) throws(StoreError) {
        let width = 100
        let s = try database.statement("SELECT \(columns.joined(separator: ", ")) FROM \(table.name) WHERE \(key) IN (\(Array(repeating: "?", count: width).joined(separator: ", ")))")
        var start = 0
        while start < values.count {
            let chunk = values[start..<min(start + width, values.count)]
            for k in 0..<width { s.bind(Int32(k + 1), k < chunk.count ? chunk[chunk.startIndex + k] : .null) }
            defer { s.reset() }
            while try s.step() { body(try row(of: s, kinds)) }
            start += width
        }
    }

    /// The row `s` is on, its columns read as `kinds`.
    private func row(of s: any SQLStatement, _ kinds: [ColumnKind]) throws(StoreError) -> [ColumnValue] {
        var values: [ColumnValue] = []
        values.reserveCapacity(kinds.count)
        for (column, kind) in kinds.enumerated() { values.append(try s.value(Int32(column), as: kind)) }
        return values
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
            result.append(try row(of: s, kinds))
        }
        return result
    }

    func render(_ entity: EntityDefinition, row: [ColumnValue], include: Inclusion) throws(StoreError) -> JSON {
        budget.remaining -= 1
        guard budget.remaining >= 0 else { throw refusal() }
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
        while try s.step() { result.append([try s.value(0, as: kind)]) }
        return result
    }
}
