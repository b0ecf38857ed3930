import LarderJSON
import LarderStorage

/// One registered version of an object type.
public struct TypeSchema: Equatable, Sendable {
    public var type: String
    public var version: SchemaVersion
    public var fields: [FieldDefinition]
    public var parent: String?
    /// Category name → its extra fields (HMCache's category properties); always optional.
    public var extensions: [(category: String, fields: [FieldDefinition])]
    public var migrations: [Migration]

    public static func == (a: TypeSchema, b: TypeSchema) -> Bool { a.json == b.json }

    /// Reads a `schema.register` request's definition.
    public init(type: String, version: String, definition: JSON) throws(StoreError) {
        guard !type.isEmpty else { throw .invalidArgument(field: "type", reason: "must not be empty") }
        guard let v = SchemaVersion(version) else {
            throw .invalidArgument(field: "version", reason: "\"\(version)\" is not a version (dotted numbers such as 1.0.2)")
        }
        self.type = type
        self.version = v
        fields = try FieldDefinition.list(from: definition["fields"], at: "fields")
        switch definition["parent"] {
        case nil, .null?: parent = nil
        case .string(let p)? where !p.isEmpty && p != type: parent = p
        default: throw .invalidArgument(field: "parent", reason: "must name another type")
        }
        extensions = []
        if let ext = definition["extensions"], !ext.isNull {
            guard case .object(let o) = ext else { throw .invalidArgument(field: "extensions", reason: "must map category names to fields") }
            for m in o.members {
                extensions.append((m.key, try FieldDefinition.list(from: m.value, at: "extensions.\(m.key)")))
            }
        }
        migrations = []
        if let list = definition["migrations"], !list.isNull {
            guard case .array(let items) = list else { throw .invalidArgument(field: "migrations", reason: "must be a list") }
            for (k, item) in items.enumerated() { migrations.append(try Migration(json: item, at: "migrations[\(k)]")) }
        }
        for m in migrations {
            for f in m.from where f >= v {
                throw .invalidArgument(field: "migrations", reason: "a migration into \(version) must come from an older version, not \(f)")
            }
        }
        var seen = Set<String>()
        for f in fields + extensions.flatMap(\.fields) where !seen.insert(f.name).inserted {
            throw .invalidArgument(field: "fields", reason: "field \"\(f.name)\" is declared twice")
        }
    }

    /// The definition as stored and as `schema.get` returns it.
    public var json: JSON {
        var o: JSONObject = ["type": .string(type), "version": .string(version.text), "fields": FieldDefinition.json(of: fields)]
        if let parent { o["parent"] = .string(parent) }
        if !extensions.isEmpty {
            o["extensions"] = .object(JSONObject(extensions.map { ($0.category, FieldDefinition.json(of: $0.fields)) }))
        }
        if !migrations.isEmpty { o["migrations"] = .array(migrations.map(\.json)) }
        return .object(o)
    }

    /// Fields declared by this type itself, extensions included (made optional).
    var ownFields: [FieldDefinition] {
        fields + extensions.flatMap { $0.fields.map { f in
            var f = f
            if !f.type.isOptional { f.type = .optional(f.type) }
            return f
        } }
    }

    func category(of field: String) -> String? {
        extensions.first { $0.fields.contains { $0.name == field } }?.category
    }
}
