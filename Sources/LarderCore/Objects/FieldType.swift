import LarderJSON
import LarderStorage

/// The type of one field of an object schema.
public indirect enum FieldType: Equatable, Sendable {
    case string, integer, number, bool, date, data, json
    case array(FieldType)
    case map(FieldType)
    /// A nested object of another registered type.
    case ref(String)
    case optional(FieldType)

    private static let scalars: [String: FieldType] = [
        "string": .string, "integer": .integer, "number": .number, "bool": .bool,
        "date": .date, "data": .data, "json": .json,
    ]

    /// Reads `"string"`, `"string?"`, `{"array": T}`, `{"map": T}`, `{"ref": "Type"}`, `{"optional": T}`.
    public init(json: JSON, at path: String) throws(StoreError) {
        switch json {
        case .string(let name):
            if name.hasSuffix("?") {
                self = .optional(try FieldType(json: .string(String(name.dropLast())), at: path))
            } else if let t = Self.scalars[name] {
                self = t
            } else {
                throw .invalidArgument(field: path, reason: "unknown type \"\(name)\" (string, integer, number, bool, date, data, json, or {array|map|ref|optional: …})")
            }
        case .object(let o) where o.count == 1:
            let (kind, inner) = (o.members[0].key, o.members[0].value)
            switch kind {
            case "array": self = .array(try FieldType(json: inner, at: path + ".array"))
            case "map": self = .map(try FieldType(json: inner, at: path + ".map"))
            case "optional": self = .optional(try FieldType(json: inner, at: path + ".optional"))
            case "ref":
                guard case .string(let type) = inner, !type.isEmpty else {
                    throw .invalidArgument(field: path + ".ref", reason: "must name a type")
                }
                self = .ref(type)
            default:
                throw .unknownMember(UnknownMember(path: "\(path).\(kind)", name: kind, expected: ["array", "map", "ref", "optional"]))
            }
        default:
            throw .invalidArgument(field: path, reason: "a type is a name such as \"string\" or an object such as {\"array\": \"integer\"}")
        }
    }

    /// The canonical form stored and returned.
    public var json: JSON {
        switch self {
        case .string: return "string"
        case .integer: return "integer"
        case .number: return "number"
        case .bool: return "bool"
        case .date: return "date"
        case .data: return "data"
        case .json: return "json"
        case .array(let t): return ["array": t.json]
        case .map(let t): return ["map": t.json]
        case .ref(let type): return ["ref": .string(type)]
        case .optional(let t): return ["optional": t.json]
        }
    }

    public var isOptional: Bool {
        if case .optional = self { return true }
        return false
    }

    /// The type without its optional wrapper.
    var required: FieldType {
        if case .optional(let t) = self { return t.required }
        return self
    }

    /// How the type reads in an error message: `string`, `{"array":"integer"}`.
    public var name: String { json.stringValue ?? json.description }
}
