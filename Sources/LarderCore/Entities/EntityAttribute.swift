import LarderJSON
import LarderStorage

/// An attribute of an entity: a column of a scalar type (or its optional form).
public struct EntityAttribute: Equatable, Sendable {
    public var name: String
    public var type: FieldType

    public init(name: String, type: FieldType) {
        self.name = name
        self.type = type
    }

    static let scalarTypes: [FieldType] = [.string, .integer, .number, .bool, .date, .data, .json]

    /// Reads a type as `schema.register` does, refusing structured types: an
    /// attribute is one column.
    init(name: String, json: JSON, at path: String) throws(StoreError) {
        let type = try FieldType(json: json, at: path)
        guard Self.scalarTypes.contains(type.required) else {
            throw .invalidArgument(field: path, reason: "an attribute has a scalar type (string, integer, number, bool, date, data, json, or one of them optional), not \(type.name)")
        }
        self.init(name: name, type: type)
    }

    public var isOptional: Bool { type.isOptional }

    var kind: ColumnKind { Self.kind(of: type.required) }

    static func kind(of scalar: FieldType) -> ColumnKind {
        switch scalar {
        case .integer, .bool, .date: return .integer
        case .number: return .real
        case .data: return .blob
        default: return .text
        }
    }

    /// The column value for a non-null JSON value; nil if the value does not fit the type.
    func columnValue(_ value: JSON, dates: DateFormat) -> ColumnValue? {
        switch type.required {
        case .string:
            guard case .string(let s) = value else { return nil }
            return .text(s)
        case .integer:
            guard case .number(let n) = value, let i = n.int64 else { return nil }
            return .integer(i)
        case .number:
            guard case .number(let n) = value, n.double.isFinite else { return nil }
            return .real(n.double)
        case .bool:
            guard case .bool(let b) = value else { return nil }
            return .integer(b ? 1 : 0)
        case .date:
            return dates.milliseconds(from: value).map(ColumnValue.integer)
        case .data:
            guard case .string(let s) = value, let bytes = Base64.decode(s) else { return nil }
            return .blob(bytes)
        default:
            return .text(value.resolved.description)
        }
    }

    /// What a value of this type looks like, for error messages.
    func expectation(dates: DateFormat) -> String {
        switch type.required {
        case .date: return "a date in \(dates.rawValue) format (such as \(dates.example))"
        case .data: return "data (base64)"
        default: return type.required.name
        }
    }

    /// Why `value` does not fit, for error messages.
    func mismatch(_ value: JSON, dates: DateFormat) -> String {
        if type.required == .integer, case .number(let n) = value, let range = n.integerRange {
            return "expected integer \(range), got \(n.literal)"
        }
        let got: String
        switch (type.required, value) {
        case (.date, .string), (.date, .number), (.data, .string), (.integer, .number): got = value.description
        default: got = value.typeName
        }
        return "expected \(expectation(dates: dates)), got \(got)"
    }

    /// The JSON for a stored column value.
    func json(_ value: ColumnValue, dates: DateFormat) -> JSON {
        switch (type.required, value) {
        case (_, .null): return .null
        case (.bool, .integer(let i)): return .bool(i != 0)
        case (.date, .integer(let ms)): return dates.json(milliseconds: ms)
        case (.data, .blob(let b)): return .string(Base64.encode(b))
        case (.json, .text(let t)): return .fragment(JSONFragment(validJSON: Array(t.utf8)))
        case (_, .integer(let i)): return .number(JSONNumber(i))
        case (_, .real(let d)): return .double(d)
        case (_, .text(let s)): return .string(s)
        case (_, .blob(let b)): return .string(Base64.encode(b))
        }
    }
}
