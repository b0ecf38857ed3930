/// A JSON value as RFC 8259 defines it.
///
/// Objects keep their members in the order they were written, so a value that
/// goes into the store comes back out byte for byte. Numbers keep their literal
/// text (see `JSONNumber`), so an id or a value is echoed exactly as received.
public enum JSON: Sendable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSON])
    case object(JSONObject)
    /// Already-encoded JSON text, written verbatim. Lets a stored value reach a
    /// response without being parsed and written again.
    case fragment(JSONFragment)
}

extension JSON {
    public static func int(_ value: Int) -> JSON { .number(JSONNumber(value)) }
    public static func double(_ value: Double) -> JSON { .number(JSONNumber(value)) }

    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var numberValue: JSONNumber? {
        if case .number(let n) = self { return n }
        return nil
    }

    public var arrayValue: [JSON]? {
        if case .array(let a) = self { return a }
        return nil
    }

    public var objectValue: JSONObject? {
        if case .object(let o) = self { return o }
        return nil
    }

    /// The member `key` of an object, nil for anything else.
    public subscript(key: String) -> JSON? {
        switch self {
        case .object(let o): return o[key]
        case .fragment(let f): return f.parsed?[key]
        default: return nil
        }
    }

    /// The JSON type name used in error messages ("expected integer, got string").
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .number(let n): return n.isInteger ? "integer" : "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        case .fragment(let f): return f.parsed?.typeName ?? "json"
        }
    }

    /// A fragment replaced by the value it encodes, recursively; other values as they are.
    public var resolved: JSON {
        switch self {
        case .fragment(let f): return f.parsed?.resolved ?? .null
        case .array(let a): return .array(a.map(\.resolved))
        case .object(let o): return .object(JSONObject(o.members.map { ($0.key, $0.value.resolved) }))
        default: return self
        }
    }
}

extension JSON: Equatable {
    /// Structural equality: object member order is ignored, numbers compare by
    /// value (`1`, `1.0` and `1e0` are equal), fragments compare by what they encode.
    public static func == (lhs: JSON, rhs: JSON) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.number(a), .number(b)): return a == b
        case let (.string(a), .string(b)): return a == b
        case let (.array(a), .array(b)): return a == b
        case let (.object(a), .object(b)): return a == b
        case let (.fragment(a), _): return a.parsed.map { $0 == rhs } ?? false
        case let (_, .fragment(b)): return b.parsed.map { lhs == $0 } ?? false
        default: return false
        }
    }
}

extension JSON: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .number(JSONNumber(value)) }
    public init(floatLiteral value: Double) { self = .number(JSONNumber(value)) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSON...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSON)...) { self = .object(JSONObject(elements)) }
}

extension JSON: CustomStringConvertible {
    /// Compact JSON text.
    public var description: String {
        var writer = JSONWriter()
        writer.write(self)
        return writer.withBytes { String(decoding: $0, as: UTF8.self) }
    }
}
