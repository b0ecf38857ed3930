import LarderJSON
import LarderStorage

/// A query over one entity's records: conditions combined with AND, an
/// order, and a page. Conditions and order keys are JSON keys (attributes or
/// to-one relationships); values are written as in records (dates in the
/// model's format, relationships as the destination's identifier).
public struct RecordQuery: Sendable {
    /// `{key: value}` for equality, or `{key: {operator: operand, ...}}`.
    public var conditions: JSON?
    /// Keys to order by, `-key` for descending; the identifier breaks ties.
    public var orderBy: [String]
    /// At most this many records; nil for all.
    public var limit: Int?
    public var offset: Int

    public init(conditions: JSON? = nil, orderBy: [String] = [], limit: Int? = nil, offset: Int = 0) {
        self.conditions = conditions
        self.orderBy = orderBy
        self.limit = limit
        self.offset = offset
    }

    /// The operators a condition object may use.
    public static let operators = ["eq", "ne", "gt", "gte", "lt", "lte", "in", "like", "isNull"]
}

/// SQL for a query's conditions: clauses joined by AND, with their bound values.
struct EntityFilter {
    private(set) var clauses: [String] = []
    private(set) var bindings: [ColumnValue] = []

    var sql: String { clauses.isEmpty ? "" : "WHERE " + clauses.joined(separator: " AND ") }

    /// A column a condition can test, and how its operands are read.
    private struct Operand {
        let column: String
        let key: String
        /// nil for a relationship; its type otherwise.
        let attribute: EntityAttribute?
        let linkKind: ColumnKind?
        let dates: DateFormat

        func value(_ json: JSON, at path: String) throws(StoreError) -> ColumnValue {
            if let attribute {
                guard let v = attribute.columnValue(json, dates: dates) else {
                    throw .invalidArgument(field: path, reason: attribute.mismatch(json, dates: dates))
                }
                return v
            }
            switch (linkKind, json) {
            case (.integer?, .number(let n)) where n.int64 != nil: return .integer(n.int64!)
            case (.text?, .string(let s)): return .text(s)
            default:
                throw .invalidArgument(field: path, reason: "expected an identifier (\(linkKind == .integer ? "integer" : "string")), got \(json.typeName)")
            }
        }

        var scalar: FieldType { attribute?.type.required ?? (linkKind == .integer ? .integer : .string) }
    }

    private let dialect: SQLDialect

    init(_ conditions: JSON?, entity: EntityDefinition, dates: DateFormat, dialect: SQLDialect) throws(StoreError) {
        self.dialect = dialect
        guard let conditions, !conditions.isNull else { return }
        guard case .object(let o) = conditions else {
            throw .invalidArgument(field: "where", reason: "expected an object mapping keys to values or operators, got \(conditions.typeName)")
        }
        for m in o.members {
            let path = "where.\(m.key)"
            let operand = try Self.operand(m.key, of: entity, dates: dates, at: path)
            guard case .object(let ops) = m.value else {
                try add("eq", m.value, operand, at: path)
                continue
            }
            guard !ops.isEmpty else {
                throw .invalidArgument(field: path, reason: "an operator object needs at least one of \(RecordQuery.operators.joined(separator: ", "))")
            }
            for op in ops.members { try add(op.key, op.value, operand, at: "\(path).\(op.key)") }
        }
    }

    private static func operand(_ key: String, of entity: EntityDefinition, dates: DateFormat, at path: String) throws(StoreError) -> Operand {
        switch entity.field(forKey: key) {
        case .attribute(let a)?:
            return Operand(column: EntityTable.quote(entity.attributes[a].name), key: key, attribute: entity.attributes[a], linkKind: nil, dates: dates)
        case .relationship(let r)?:
            guard let kind = entity.linkKinds[r] else {
                let inverse = entity.inverseLinks[r]!
                throw .invalidArgument(field: path, reason: "\(key) is a to-many relationship; query \(entity.relationships[r].destination) by \(inverse) instead")
            }
            return Operand(column: EntityTable.quote(entity.relationships[r].name), key: key, attribute: nil, linkKind: kind, dates: dates)
        case nil:
            throw .invalidArgument(field: path, reason: entity.noSuchField(key))
        }
    }

    private mutating func add(_ op: String, _ value: JSON, _ operand: Operand, at path: String) throws(StoreError) {
        let column = operand.column
        let structured = operand.scalar == .json
        switch op {
        case "eq", "ne":
            if value.isNull {
                clauses.append("\(column) \(op == "eq" ? "IS NULL" : "IS NOT NULL")")
                return
            }
            guard !structured else { throw notComparable(operand, path) }
            // IS NOT: a record whose value is null is not equal to the operand.
            clauses.append("\(column) \(op == "eq" ? "=" : "IS DISTINCT FROM") ?")
            bindings.append(try operand.value(value, at: path))
        case "gt", "gte", "lt", "lte":
            guard !structured, operand.scalar != .data else { throw notComparable(operand, path) }
            guard !value.isNull else { throw .invalidArgument(field: path, reason: "\(op) needs a value, not null (use isNull)") }
            let sign = ["gt": ">", "gte": ">=", "lt": "<", "lte": "<="][op]!
            clauses.append("\(column) \(sign) ?")
            bindings.append(try operand.value(value, at: path))
        case "in":
            guard !structured, operand.scalar != .data else { throw notComparable(operand, path) }
            guard case .array(let list) = value else {
                throw .invalidArgument(field: path, reason: "in needs an array of values, got \(value.typeName)")
            }
            var items: [JSON] = []
            for (k, v) in list.enumerated() {
                guard !v.isNull else { throw .invalidArgument(field: "\(path)[\(k)]", reason: "null never equals anything; use isNull") }
                switch try operand.value(v, at: "\(path)[\(k)]") {
                case .integer(let i): items.append(.number(JSONNumber(i)))
                case .real(let d): items.append(.double(d))
                case .text(let s): items.append(.string(s))
                case .null, .blob: break
                }
            }
            // One statement whatever the list's length: the values travel as one JSON array.
            if dialect == .sqlite {
                clauses.append("\(column) IN (SELECT value FROM json_each(?))")
            } else {
                // A cast names a bare type: text's collation comes from the column it meets.
                let kind = operand.attribute?.kind ?? operand.linkKind ?? .text
                let type = kind == .text ? "text" : kind.type(in: dialect)
                clauses.append("\(column) IN (SELECT CAST(value AS \(type)) FROM jsonb_array_elements_text(CAST(CAST(? AS text) AS jsonb)) AS list(value))")
            }
            bindings.append(.text(JSON.array(items).description))
        case "like":
            guard operand.scalar == .string else {
                throw .invalidArgument(field: path, reason: "like compares strings; \(operand.key) is \(operand.scalar.name)")
            }
            guard case .string(let pattern) = value else {
                throw .invalidArgument(field: path, reason: "like needs a pattern string (% for any run, _ for one character), got \(value.typeName)")
            }
            clauses.append("\(column) \(dialect.likePattern)")
            bindings.append(.text(pattern))
        case "isNull":
            guard case .bool(let b) = value else { throw .invalidArgument(field: path, reason: "isNull needs true or false, got \(value.typeName)") }
            clauses.append("\(column) \(b ? "IS NULL" : "IS NOT NULL")")
        default:
            throw .unknownMember(UnknownMember(path: path, name: op, expected: RecordQuery.operators))
        }
    }

    private func notComparable(_ operand: Operand, _ path: String) -> StoreError {
        .invalidArgument(field: path, reason: "\(operand.key) holds \(operand.scalar.name) values, which can only be tested with isNull" + (operand.scalar == .data ? ", eq or ne" : ""))
    }

    /// `ORDER BY` for `keys` (`-key` descending), ending with the identifier so pages are stable.
    static func ordering(_ keys: [String], entity: EntityDefinition) throws(StoreError) -> String {
        var terms: [String] = []
        var hasIdentifier = false
        for (k, raw) in keys.enumerated() {
            let descending = raw.hasPrefix("-")
            let key = descending ? String(raw.dropFirst()) : raw
            let column: String
            switch entity.field(forKey: key) {
            case .attribute(let a)?:
                column = EntityTable.quote(entity.attributes[a].name)
                if a == entity.identifierIndex { hasIdentifier = true }
            case .relationship(let r)? where !entity.relationships[r].toMany:
                column = EntityTable.quote(entity.relationships[r].name)
            case .relationship?:
                throw .invalidArgument(field: "orderBy[\(k)]", reason: "\(key) is a to-many relationship; records are ordered by attributes or to-one relationships")
            case nil:
                throw .invalidArgument(field: "orderBy[\(k)]", reason: entity.noSuchField(key))
            }
            // Nulls first, as SQLite orders them (PostgreSQL puts them last unless told).
            terms.append(column + (descending ? " DESC NULLS LAST" : " NULLS FIRST"))
        }
        if !hasIdentifier { terms.append(EntityTable(entity: entity).identifierColumn) }
        return "ORDER BY " + terms.joined(separator: ", ")
    }
}
