import LarderJSON
import LarderStorage

/// Converts one record from one form (`RecordForm`) to the other without
/// reading or writing records: `entity.render` (model form → JSON form, the
/// whole record as `entity.get` writes it) and `entity.parse` (JSON form →
/// model form, the members the record has). Attributes go through staging's
/// reading (`stagedRecord`) and the renderer's writing (`EntityAttribute.json`).
///
/// Relationships, both ways: a to-one one is null, the destination's
/// identifier, or the destination record nested; a to-many one is an array
/// of identifiers, or of nested records, written in identifier order as
/// `entity.get` orders them. A record nested in a to-many relationship refers
/// back to the record it is nested in through the inverse: left out, it is
/// written as that record's identifier (when the whole record is written);
/// naming another record is refused. Nothing else is inferred: a to-many
/// relationship is what the record lists, not what refers to it in the store.
struct RecordConversion {
    let model: EntityModel
    let from: RecordForm
    let to: RecordForm
    /// Writes every member as `entity.get` does (an attribute left out as null,
    /// a to-one relationship as null, a to-many one as `[]`), and requires the
    /// required attributes; otherwise only the members the record has.
    let complete: Bool

    /// The record a to-many relationship nests a record in.
    private struct Enclosing {
        /// The nested record's relationship that points back (the inverse).
        let link: Int
        let id: ColumnValue
        /// `albums of Band "Japan"`, for messages.
        let description: String
    }

    /// `json`, a record of `entity` in the `from` form, in the `to` form.
    func convert(_ json: JSON, of entity: EntityDefinition, at path: String) throws(StoreError) -> JSON {
        try convert(json, of: entity, at: path, enclosing: nil).json
    }

    private func convert(_ json: JSON, of entity: EntityDefinition, at path: String,
                         enclosing: Enclosing?) throws(StoreError) -> (id: ColumnValue, json: JSON) {
        let staged = try entity.stagedRecord(from: json, at: path, in: from, links: false)
        let label = entity.label(staged.id)
        if complete {
            let missing = entity.attributes.indices.filter { !entity.attributes[$0].isOptional && staged.attributes[$0] == nil }
            guard missing.isEmpty else {
                let keys = missing.map { entity.attributeKey($0, in: from) }.joined(separator: ", ")
                throw .invalidArgument(field: path, reason: "\(label) lacks required attributes: \(keys)")
            }
        }
        // stagedRecord checked that it is an object whose every key names a member.
        let members = json.objectValue?.members ?? []
        var given = [(key: String, value: JSON)?](repeating: nil, count: entity.relationships.count)
        for m in members {
            if case .relationship(let r)? = entity.field(forKey: m.key) { given[r] = m }
        }
        var out = JSONObject()
        for (a, attribute) in entity.attributes.enumerated() {
            guard let value = staged.attributes[a] ?? (complete ? .null : nil) else { continue }
            out.append(entity.attributeKey(a, in: to), attribute.json(value, dates: to.dates))
        }
        for (r, relationship) in entity.relationships.enumerated() {
            let destination = model.entity(named: relationship.destination)!
            let value: JSON?
            if let (key, v) = given[r] {
                let at = "\(path).\(key)"
                if relationship.toMany {
                    let inverse = destination.relationshipIndex(entity.inverseLinks[r]!)!
                    let nestedIn = Enclosing(link: inverse, id: staged.id, description: "\(key) of \(label)")
                    value = try many(v, of: destination, at: at, label: label, enclosing: nestedIn)
                } else {
                    let (id, written) = try one(v, of: destination, at: at, label: label)
                    if let enclosing, enclosing.link == r, id != enclosing.id {
                        throw .invalidArgument(field: at, reason: "\(label) is nested in \(enclosing.description), so its \(key) must be \(EntityDefinition.describe(enclosing.id)), not \(EntityDefinition.describe(id))")
                    }
                    value = written
                }
            } else if !complete {
                value = nil
            } else if relationship.toMany {
                value = .array([])
            } else if let enclosing, enclosing.link == r {
                value = EntityDefinition.json(enclosing.id)
            } else {
                value = .null
            }
            if let value { out.append(entity.relationshipKey(r, in: to), value) }
        }
        return (staged.id, .object(out))
    }

    /// A to-one relationship's value: null, an identifier, or a nested record.
    private func one(_ value: JSON, of destination: EntityDefinition, at path: String,
                     label: String, enclosing: Enclosing? = nil) throws(StoreError) -> (id: ColumnValue, json: JSON) {
        switch value {
        case .null:
            return (.null, .null)
        case .object:
            return try convert(value, of: destination, at: path, enclosing: enclosing)
        default:
            let id = try destination.reference(value, kind: destination.identifierAttribute.kind, destination: destination.name,
                                               at: path, label: label)
            return (id, EntityDefinition.json(id))
        }
    }

    /// A to-many relationship's value: identifiers and nested records, in identifier order.
    private func many(_ value: JSON, of destination: EntityDefinition, at path: String, label: String,
                      enclosing: Enclosing) throws(StoreError) -> JSON {
        guard case .array(let elements) = value else {
            throw .invalidArgument(field: path, reason: "\(label): expected an array of \(destination.name) identifiers or records, got \(value.typeName)")
        }
        var related: [(id: ColumnValue, json: JSON)] = []
        var seen = Set<ColumnValue>()
        // `entity.get` writes all identifiers, or all records (`include`).
        let nested = elements.first?.objectValue != nil
        for (k, element) in elements.enumerated() {
            let at = "\(path)[\(k)]"
            guard (element.objectValue != nil) == nested, !element.isNull else {
                let expected = nested ? "a \(destination.name) record, as the first element is" : "the identifier of a \(destination.name), as the first element is"
                throw .invalidArgument(field: at, reason: "\(label): expected \(expected), got \(element.typeName)")
            }
            let r = try one(element, of: destination, at: at, label: label, enclosing: enclosing)
            guard seen.insert(r.id).inserted else {
                throw .invalidArgument(field: at, reason: "\(label) lists \(destination.label(r.id)) twice")
            }
            related.append(r)
        }
        related.sort { Self.precedes($0.id, $1.id) }
        return .array(related.map(\.json))
    }

    /// Identifier order, as SQLite sorts the column: integers by value, text by UTF-8 bytes.
    private static func precedes(_ a: ColumnValue, _ b: ColumnValue) -> Bool {
        switch (a, b) {
        case let (.integer(x), .integer(y)): return x < y
        case let (.text(x), .text(y)): return x.utf8.lexicographicallyPrecedes(y.utf8)
        default: return false
        }
    }
}

extension EntityStore {
    /// `entity.render`: `record`, written in the model form, checked and
    /// written whole in the JSON form, as `entity.get` (with `include` naming
    /// the relationships that hold nested records) returns it once stored.
    /// Reads the model and nothing else.
    func render(_ record: JSON, entity name: String, at path: String = "record") throws(StoreError) -> JSON {
        let (model, entity) = try entity(name)
        let conversion = RecordConversion(model: model, from: .model, to: .json(of: model), complete: true)
        return try conversion.convert(record, of: entity, at: path)
    }

    /// `entity.parse`: `json`, a record in the JSON form, checked as
    /// `entity.stage` checks it and written in the model form, with the
    /// members it has. Reads the model and nothing else.
    func parse(_ json: JSON, entity name: String, at path: String = "json") throws(StoreError) -> JSON {
        let (model, entity) = try entity(name)
        let conversion = RecordConversion(model: model, from: .json(of: model), to: .model, complete: false)
        return try conversion.convert(json, of: entity, at: path)
    }
}
