import LarderJSON
import LarderStorage

/// An attribute or a relationship of an entity, by position.
enum EntityField: Sendable {
    case attribute(Int)
    case relationship(Int)
}

/// One entity of a model: attributes, the one among them that identifies a
/// record (JSONCache's `id` or `JC.isIdentifier`), and relationships.
public struct EntityDefinition: Sendable {
    public var name: String
    public var attributes: [EntityAttribute]
    public var identifier: String
    public var relationships: [Relationship]

    // Derived by `EntityModel` once the whole model is known.
    var keys: KeyMap
    var identifierIndex = 0
    /// Every attribute and relationship by its JSON key.
    var fieldsByKey: [ExactString: EntityField] = [:]
    var attributeKeys: [String] = []
    var relationshipKeys: [String] = []
    /// The column kind of each to-one relationship (its destination's identifier kind); nil for to-many.
    var linkKinds: [ColumnKind?] = []
    /// For each to-many relationship, the name of the to-one relationship on its destination that points back.
    var inverseLinks: [String?] = []
    /// The identifier kind of each relationship's destination.
    var destinationKinds: [ColumnKind] = []
    /// For each relationship, the relationship of its destination that mirrors
    /// it, declared on either side; nil when none does.
    var inverses: [String?] = []

    /// Reads `{name, attributes: {name: type}, identifier?, relationships?: [...]}`.
    init(json: JSON, at path: String) throws(StoreError) {
        guard case .object(let o) = json else {
            throw .invalidArgument(field: path, reason: "an entity is an object {name, attributes, identifier?, relationships?}")
        }
        try o.checkMembers(["name", "attributes", "identifier", "relationships"], at: path)
        guard case .string(let name) = o["name"] ?? .null, EntityTable.isUsableName(name) else {
            throw .invalidArgument(field: "\(path).name", reason: "an entity needs a non-empty name without dots or U+0000")
        }
        guard case .object(let attributeTypes) = o["attributes"] ?? .null, !attributeTypes.isEmpty else {
            throw .invalidArgument(field: "\(path).attributes", reason: "\(name) needs attributes: an object mapping names to types")
        }
        var attributes: [EntityAttribute] = []
        for m in attributeTypes.members {
            guard EntityTable.isUsableName(m.key) else {
                throw .invalidArgument(field: "\(path).attributes", reason: "attribute names must be non-empty and have no dots or U+0000: \(JSON.string(m.key))")
            }
            if attributes.contains(where: { $0.name == m.key }) {
                throw .invalidArgument(field: "\(path).attributes.\(m.key)", reason: "\(name) declares \(m.key) twice")
            }
            attributes.append(try EntityAttribute(name: m.key, json: m.value, at: "\(path).attributes.\(m.key)"))
        }
        var identifier = "id"
        if let v = o["identifier"], !v.isNull {
            guard case .string(let s) = v, !s.isEmpty else {
                throw .invalidArgument(field: "\(path).identifier", reason: "expected the name of an attribute of \(name)")
            }
            identifier = s
        }
        var relationships: [Relationship] = []
        if let v = o["relationships"], !v.isNull {
            guard case .array(let list) = v else {
                throw .invalidArgument(field: "\(path).relationships", reason: "expected an array of relationships, got \(v.typeName)")
            }
            for (k, r) in list.enumerated() {
                relationships.append(try Relationship(json: r, at: "\(path).relationships[\(k)]"))
            }
        }
        self.init(name: name, attributes: attributes, identifier: identifier, relationships: relationships)
    }

    public init(name: String, attributes: [EntityAttribute], identifier: String = "id", relationships: [Relationship] = []) {
        self.name = name
        self.attributes = attributes
        self.identifier = identifier
        self.relationships = relationships
        self.keys = KeyMap(entity: name, casing: .camelCase, reservedWords: [])
    }

    var json: JSON {
        var o: JSONObject = ["name": .string(name), "identifier": .string(identifier)]
        o.append("attributes", .object(JSONObject(attributes.map { ($0.name, $0.type.json) })))
        o.append("relationships", .array(relationships.map(\.json)))
        return .object(o)
    }

    var identifierAttribute: EntityAttribute { attributes[identifierIndex] }

    func attributeIndex(_ name: String) -> Int? { attributes.firstIndex { $0.name == name } }
    func relationshipIndex(_ name: String) -> Int? { relationships.firstIndex { $0.name == name } }

    /// Why `key` names nothing here, with the key most likely meant: `Album has
    /// no attribute or relationship "nmae" (did you mean name?)`.
    /// With `names`, the suggestion is a name (a record in the model form).
    func noSuchField(_ key: String, names: Bool = false) -> String {
        let known = names ? attributes.map(\.name) + relationships.map(\.name) : attributeKeys + relationshipKeys
        let meant = NearestName.suggestion(for: key, among: known).map { " (did you mean \($0)?)" } ?? ""
        return "\(name) has no attribute or relationship \"\(key)\"\(meant)"
    }

    /// The attribute or relationship a JSON key names; the model name is accepted too.
    func field(forKey key: String) -> EntityField? {
        if let f = fieldsByKey[ExactString(key)] { return f }
        let name = keys.name(forKey: key)
        if let a = attributeIndex(name) { return .attribute(a) }
        if let r = relationshipIndex(name) { return .relationship(r) }
        if let a = attributeIndex(key) { return .attribute(a) }
        return relationshipIndex(key).map(EntityField.relationship)
    }

    /// Indexes of the to-one relationships: the ones with a column.
    var toOneIndexes: [Int] { relationships.indices.filter { !relationships[$0].toMany } }

    /// The identifier of a record as a column value, from JSON; nil if it does not fit the identifier's type.
    func identifierValue(_ json: JSON) -> ColumnValue? {
        identifierAttribute.columnValue(json, dates: .iso8601)
    }

    /// An identifier for messages: `"Japan"` or `42`.
    static func describe(_ id: ColumnValue) -> String {
        switch id {
        case .text(let s): return JSON.string(s).description
        case .integer(let i): return String(i)
        case .real(let d): return JSON.double(d).description
        case .null: return "null"
        case .blob(let b): return Base64.encode(b)
        }
    }

    /// An identifier as JSON.
    static func json(_ id: ColumnValue) -> JSON {
        switch id {
        case .text(let s): return .string(s)
        case .integer(let i): return .number(JSONNumber(i))
        case .real(let d): return .double(d)
        case .null: return .null
        case .blob(let b): return .string(Base64.encode(b))
        }
    }
}

extension EntityDefinition: Equatable {
    /// Declarations only: what the client defined, not what was derived from it.
    public static func == (a: EntityDefinition, b: EntityDefinition) -> Bool {
        a.name == b.name && a.attributes == b.attributes && a.identifier == b.identifier && a.relationships == b.relationships
    }
}
