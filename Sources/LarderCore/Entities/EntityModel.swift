import LarderJSON
import LarderStorage

/// A named set of entities with the JSON conventions they are read and
/// written with: key casing, date format, and reserved words.
public struct EntityModel: Equatable, Sendable {
    public var name: String
    public var casing: KeyCasing
    public var dateFormat: DateFormat
    public var reservedWords: [String]
    public var entities: [EntityDefinition]

    /// The members of a definition, as `entity.define` takes them.
    public static let members = ["model", "entities", "casing", "dateFormat", "reservedWords", "encrypted"]

    /// JSONCache's only reserved word.
    public static let defaultReservedWords = ["description"]

    /// Reads `entity.define`'s parameters: `{model, entities, casing?, dateFormat?, reservedWords?}`.
    /// `stored`: the definition is one the store holds, accepted when it was defined (see `resolveRelationships`).
    public init(definition json: JSON, stored: Bool = false) throws(StoreError) {
        guard case .object(let o) = json else { throw .invalidArgument(field: "model", reason: "a model definition is an object") }
        try o.checkMembers(Self.members, at: "")
        guard case .string(let name) = o["model"] ?? .null, !name.isEmpty else {
            throw .invalidArgument(field: "model", reason: "a model needs a non-empty name")
        }
        if let v = o["encrypted"], !v.isNull {
            guard case .bool(let encrypted) = v else { throw .invalidArgument(field: "encrypted", reason: "expected a boolean, got \(v.typeName)") }
            if encrypted {
                throw .invalidArgument(field: "encrypted", reason: "entities cannot be encrypted: queries, ordering and relationships read their columns in the database. Keep sensitive values in an encrypted cache (cache.open {encrypted: true})")
            }
        }
        var casing = KeyCasing.camelCase
        if let v = o["casing"], !v.isNull {
            guard case .string(let s) = v, let c = KeyCasing(rawValue: s) else {
                throw .invalidArgument(field: "casing", reason: "expected \"camelCase\" or \"snake_case\", got \(v)")
            }
            casing = c
        }
        var dateFormat = DateFormat.iso8601
        if let v = o["dateFormat"], !v.isNull {
            guard case .string(let s) = v, let f = DateFormat(rawValue: s) else {
                throw .invalidArgument(field: "dateFormat", reason: "expected \"iso8601\", \"iso8601Basic\" or \"epochSeconds\", got \(v)")
            }
            dateFormat = f
        }
        var reserved = Self.defaultReservedWords
        if let v = o["reservedWords"], !v.isNull {
            guard case .array(let list) = v else {
                throw .invalidArgument(field: "reservedWords", reason: "expected an array of strings, got \(v.typeName)")
            }
            reserved = []
            for (k, w) in list.enumerated() {
                guard case .string(let word) = w, !word.isEmpty else {
                    throw .invalidArgument(field: "reservedWords[\(k)]", reason: "expected a non-empty string, got \(w)")
                }
                if !reserved.contains(word) { reserved.append(word) }
            }
        }
        guard case .array(let list) = o["entities"] ?? .null, !list.isEmpty else {
            throw .invalidArgument(field: "entities", reason: "a model needs an array of entities")
        }
        var entities: [EntityDefinition] = []
        for (k, e) in list.enumerated() { entities.append(try EntityDefinition(json: e, at: "entities[\(k)]")) }
        try self.init(name: name, entities: entities, casing: casing, dateFormat: dateFormat, reservedWords: reserved, stored: stored)
    }

    public init(name: String, entities: [EntityDefinition], casing: KeyCasing = .camelCase,
                dateFormat: DateFormat = .iso8601, reservedWords: [String] = defaultReservedWords,
                stored: Bool = false) throws(StoreError) {
        self.name = name
        self.casing = casing
        self.dateFormat = dateFormat
        self.reservedWords = reservedWords
        self.entities = entities
        try prepare(stored: stored)
    }

    /// The canonical definition, as stored and as `entity.models` lists it.
    public var json: JSON {
        [
            "model": .string(name), "casing": .string(casing.rawValue), "dateFormat": .string(dateFormat.rawValue),
            "reservedWords": .array(reservedWords.map(JSON.string)), "entities": .array(entities.map(\.json)),
        ]
    }

    public func entity(named name: String) -> EntityDefinition? {
        entities.first { $0.name.utf8.elementsEqual(name.utf8) }
    }

    // MARK: - Checking and deriving

    /// Checks the model as a whole and derives what reading and writing records needs.
    private mutating func prepare(stored: Bool) throws(StoreError) {
        var seen = Set<ExactString>()
        for (k, e) in entities.enumerated() where !seen.insert(ExactString(e.name)).inserted {
            throw .invalidArgument(field: "entities[\(k)].name", reason: "entity \(e.name) is defined twice")
        }
        for k in entities.indices { try prepareFields(of: k) }
        for k in entities.indices { try resolveRelationships(of: k, stored: stored) }
    }

    private mutating func prepareFields(of k: Int) throws(StoreError) {
        var e = entities[k]
        let path = "entities[\(k)]"
        guard let id = e.attributeIndex(e.identifier) else {
            throw .invalidArgument(field: "\(path).identifier", reason: "\(e.name) has no attribute \"\(e.identifier)\" to identify its records (name one with identifier)")
        }
        let idType = e.attributes[id].type
        guard idType == .string || idType == .integer else {
            throw .invalidArgument(field: "\(path).attributes.\(e.identifier)",
                                   reason: "the identifier of \(e.name) must be a required string or integer, not \(idType.name)")
        }
        e.identifierIndex = id
        for (r, rel) in e.relationships.enumerated() {
            if e.attributeIndex(rel.name) != nil {
                throw .invalidArgument(field: "\(path).relationships[\(r)].name", reason: "\(e.name) has an attribute and a relationship named \(rel.name)")
            }
            if e.relationships[..<r].contains(where: { $0.name == rel.name }) {
                throw .invalidArgument(field: "\(path).relationships[\(r)].name", reason: "\(e.name) declares relationship \(rel.name) twice")
            }
            guard entity(named: rel.destination) != nil else {
                throw .invalidArgument(field: "\(path).relationships[\(r)].destination", reason: "\(e.name).\(rel.name) leads to \(rel.destination), which is not an entity of model \(name)")
            }
        }
        e.keys = KeyMap(entity: e.name, casing: casing, reservedWords: reservedWords)
        e.fieldsByKey = [:]
        let names = e.attributes.map(\.name) + e.relationships.map(\.name)
        var keys: [String] = []
        for (n, fieldName) in names.enumerated() {
            let key = e.keys.key(forName: fieldName)
            let back = e.keys.name(forKey: key)
            let at = n < e.attributes.count ? "\(path).attributes.\(fieldName)" : "\(path).relationships[\(n - e.attributes.count)].name"
            if back != fieldName {
                if let qualified = e.keys.qualified(fieldName) {
                    throw .invalidArgument(field: at, reason: "\"\(fieldName)\" is a reserved word: \(e.name) holds it as \(qualified)")
                }
                throw .invalidArgument(field: at, reason: "\(fieldName) does not survive \(casing.rawValue) conversion (\(fieldName) → \(key) → \(back)); name it in camelCase")
            }
            let field: EntityField = n < e.attributes.count ? .attribute(n) : .relationship(n - e.attributes.count)
            if e.fieldsByKey.updateValue(field, forKey: ExactString(key)) != nil {
                throw .invalidArgument(field: at, reason: "two members of \(e.name) are written as the JSON key \"\(key)\"")
            }
            keys.append(key)
        }
        e.attributeKeys = Array(keys[..<e.attributes.count])
        e.relationshipKeys = Array(keys[e.attributes.count...])
        entities[k] = e
    }

    /// Pairs each relationship with its inverse. A relationship that several
    /// others name as their inverse, naming none of them, is refused; a stored
    /// model defined before that was refused keeps working, its relationship
    /// kept in step with none of them.
    private mutating func resolveRelationships(of k: Int, stored: Bool) throws(StoreError) {
        var e = entities[k]
        e.linkKinds = []
        e.inverseLinks = []
        e.inverses = []
        e.destinationKinds = []
        for (r, rel) in e.relationships.enumerated() {
            let path = "entities[\(k)].relationships[\(r)]"
            let destination = entity(named: rel.destination)!
            let declared = rel.inverse.flatMap { destination.relationshipIndex($0) }.map { destination.relationships[$0] }
            if let inverse = rel.inverse {
                guard let other = declared, other.destination == e.name else {
                    throw .invalidArgument(field: "\(path).inverse", reason: "\(rel.destination) has no relationship \(inverse) leading back to \(e.name)")
                }
                if let back = other.inverse, back != rel.name {
                    throw .invalidArgument(field: "\(path).inverse", reason: "\(rel.destination).\(inverse) names \(back) as its inverse, not \(rel.name)")
                }
            }
            let candidates = destination.relationships.filter { $0.destination == e.name && $0.inverse == rel.name }
            // Both sides of a pair are kept in step, so each side has one partner.
            let ambiguous = declared == nil && candidates.count > 1
            if ambiguous && !stored {
                let names = candidates.map { "\(rel.destination).\($0.name)" }.joined(separator: " and ")
                throw .invalidArgument(field: path, reason: "\(names) \(candidates.count == 2 ? "both" : "all") name \(e.name).\(rel.name) as their inverse; a relationship has one inverse (name it with inverse on \(e.name).\(rel.name))")
            }
            // A stored pair of claims on one relationship: neither claimant is kept in step with it.
            let contested = stored && declared.map { other in
                other.inverse == nil && !other.toMany
                    && e.relationships.filter { $0.destination == rel.destination && $0.inverse == other.name }.count > 1
            } == true
            e.inverses.append((ambiguous || contested) && !rel.toMany ? nil : (declared ?? candidates.first)?.name)
            e.destinationKinds.append(destination.identifierAttribute.kind)
            if !rel.toMany {
                e.linkKinds.append(destination.identifierAttribute.kind)
                e.inverseLinks.append(nil)
                continue
            }
            e.linkKinds.append(nil)
            guard let link = declared ?? candidates.first else {
                throw .invalidArgument(field: path, reason: "to-many relationship \(e.name).\(rel.name) needs an inverse: a to-one relationship of \(rel.destination) leading to \(e.name), named by inverse on either side")
            }
            guard !link.toMany else {
                throw .invalidArgument(field: path, reason: "\(e.name).\(rel.name) and \(rel.destination).\(link.name) are both to-many; many-to-many relationships are not supported (model the join as an entity)")
            }
            if let twin = e.relationships[..<r].first(where: { $0.toMany && $0.destination == rel.destination && e.inverseLinks[e.relationshipIndex($0.name)!] == link.name }) {
                throw .invalidArgument(field: path, reason: "\(rel.destination).\(link.name) is already the inverse of \(e.name).\(twin.name)")
            }
            e.inverseLinks.append(link.name)
        }
        entities[k] = e
    }
}
