import LarderJSON
import LarderStorage

/// One field of an object schema: its type, and the value it takes when absent.
public struct FieldDefinition: Equatable, Sendable {
    public var name: String
    public var type: FieldType
    public var defaultValue: JSON?

    /// Reads a type (see `FieldType`) or `{"type": T, "default": value}`.
    init(name: String, json: JSON, at path: String) throws(StoreError) {
        self.name = name
        if case .object(let o) = json, let t = o["type"] {
            try o.checkMembers(["type", "default"], at: path)
            type = try FieldType(json: t, at: path + ".type")
            defaultValue = o["default"]
        } else {
            type = try FieldType(json: json, at: path)
        }
    }

    var json: JSON {
        guard let defaultValue else { return type.json }
        return ["type": type.json, "default": defaultValue]
    }

    /// May be absent from a stored object.
    var mayBeAbsent: Bool { type.isOptional || defaultValue != nil }

    public static func list(from json: JSON?, at path: String) throws(StoreError) -> [FieldDefinition] {
        guard let json else { return [] }
        guard case .object(let o) = json else { throw .invalidArgument(field: path, reason: "must map field names to types") }
        var result: [FieldDefinition] = []
        for m in o.members {
            guard !m.key.isEmpty, !m.key.contains(".") else {
                throw .invalidArgument(field: path, reason: "field names must be non-empty and have no dots: \"\(m.key)\"")
            }
            result.append(try FieldDefinition(name: m.key, json: m.value, at: "\(path).\(m.key)"))
        }
        return result
    }

    static func json(of fields: [FieldDefinition]) -> JSON {
        .object(JSONObject(fields.map { ($0.name, $0.json) }))
    }
}
