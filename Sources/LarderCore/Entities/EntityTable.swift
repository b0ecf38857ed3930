import LarderStorage

/// The SQL that holds one entity: a STRICT table named `entity.<Entity>`
/// with a column per attribute (NOT NULL unless optional), the identifier as
/// primary key, and per to-one relationship a column holding the destination's
/// identifier with an index. Every name is quoted; values are always bound.
struct EntityTable {
    let entity: EntityDefinition

    /// `"entity.Band"`: the prefix keeps entity tables apart from the store's own.
    var name: String { Self.quote("entity." + entity.name) }

    static func quote(_ identifier: String) -> String { SQLDialect.quoted(identifier) }

    /// Whether `name` can name an entity, attribute or relationship: not
    /// empty, no dot (dots join include paths and table names), and no
    /// U+0000, which no SQL name can hold — SQLite reads SQL text up to its
    /// first NUL, so the statement would end mid-name in a syntax error.
    static func isUsableName(_ name: String) -> Bool {
        !name.isEmpty && !name.utf8.contains(UInt8(ascii: ".")) && !name.utf8.contains(0)
    }

    var identifierColumn: String { Self.quote(entity.identifier) }

    /// Columns in table order: attributes, then to-one relationships.
    var columns: [String] {
        entity.attributes.map { Self.quote($0.name) } + entity.toOneIndexes.map { Self.quote(entity.relationships[$0].name) }
    }

    /// How each column of `columns` is read.
    var columnKinds: [ColumnKind] {
        entity.attributes.map(\.kind) + entity.toOneIndexes.map { entity.linkKinds[$0]! }
    }

    /// The SELECT list for `columns`.
    var selectList: String { columns.joined(separator: ", ") }

    func createStatements(_ dialect: SQLDialect) -> [String] {
        var definitions = entity.attributes.map { a in
            "\(Self.quote(a.name)) \(a.kind.type(in: dialect))\(a.isOptional ? "" : " NOT NULL")"
        }
        definitions += entity.toOneIndexes.map { linkColumnDefinition(entity.relationships[$0], dialect) }
        definitions.append("PRIMARY KEY (\(identifierColumn))")
        // An integer identifier is the rowid itself; any other is a clustered key.
        let options = entity.identifierAttribute.kind == .integer ? dialect.strictTable : dialect.clusteredTable
        var sql = ["CREATE TABLE \(name) (\(definitions.joined(separator: ", "))) \(options)"]
        sql += entity.toOneIndexes.map { createIndex(entity.relationships[$0]) }
        return sql
    }

    func addColumn(_ attribute: EntityAttribute, _ dialect: SQLDialect) -> String {
        precondition(attribute.isOptional, "only optional attributes are added in place")
        return "ALTER TABLE \(name) ADD COLUMN \(Self.quote(attribute.name)) \(attribute.kind.type(in: dialect))"
    }

    /// A to-one relationship added in place: a nullable column and its index. A to-many one needs nothing.
    func addRelationship(_ relationship: Relationship, _ dialect: SQLDialect) -> [String] {
        guard !relationship.toMany else { return [] }
        return ["ALTER TABLE \(name) ADD COLUMN \(linkColumnDefinition(relationship, dialect))", createIndex(relationship)]
    }

    private func linkColumnDefinition(_ r: Relationship, _ dialect: SQLDialect) -> String {
        "\(Self.quote(r.name)) \(entity.linkKinds[entity.relationshipIndex(r.name)!]!.type(in: dialect))"
    }

    private func createIndex(_ r: Relationship) -> String {
        "CREATE INDEX \(Self.quote(indexName(r))) ON \(name) (\(Self.quote(r.name)))"
    }

    private func indexName(_ r: Relationship) -> String { "entity.\(entity.name).\(r.name)" }

    /// Refuses an entity whose table, a column or an index would be named
    /// longer than `dialect` allows.
    func checkNames(_ dialect: SQLDialect, field: String) throws(StoreError) {
        guard let limit = dialect.maxIdentifierBytes else { return }
        let toOne = entity.toOneIndexes.map { entity.relationships[$0] }
        let names = ["entity." + entity.name] + entity.attributes.map(\.name) + toOne.map(\.name) + toOne.map(indexName)
        for n in names where n.utf8.count > limit {
            throw .invalidArgument(field: field, reason: "a store on PostgreSQL names a table, column or index in at most \(limit) bytes, and \(n) has \(n.utf8.count) (an entity's table is entity.<Entity>, the index of a to-one relationship entity.<Entity>.<relationship>)")
        }
    }
}
