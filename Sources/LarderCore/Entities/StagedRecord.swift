import LarderJSON
import LarderStorage

/// One record converted from JSON and checked, waiting to be applied.
struct StagedRecord: Sendable {
    var id: ColumnValue
    /// Per attribute: nil when the JSON did not mention it (the stored value
    /// stays), `.null` for an explicit null (the value is cleared).
    var attributes: [ColumnValue?]
    /// Per relationship: nil when not mentioned (and always for to-many ones),
    /// `.null` to unlink, or the destination's identifier.
    var links: [ColumnValue?]
    /// The to-many relationships mentioned, by index: the identifiers of the
    /// destination records that make up the whole relationship, in the order given.
    var lists: [Int: [ColumnValue]] = [:]

    /// Takes every member `newer` mentions; the rest stays.
    mutating func merge(_ newer: StagedRecord) {
        for (k, v) in newer.attributes.enumerated() where v != nil { attributes[k] = v }
        for (k, v) in newer.links.enumerated() where v != nil { links[k] = v }
        lists.merge(newer.lists) { _, later in later }
    }

    /// The same record laid out for another definition of its entity (one
    /// that only added attributes or relationships).
    func relaid(from old: EntityDefinition, to new: EntityDefinition) -> StagedRecord {
        var relaid = StagedRecord(
            id: id,
            attributes: new.attributes.map { a in old.attributeIndex(a.name).flatMap { attributes[$0] } },
            links: new.relationships.map { r in old.relationshipIndex(r.name).flatMap { links[$0] } })
        for (r, members) in lists {
            if let k = new.relationshipIndex(old.relationships[r].name) { relaid.lists[k] = members }
        }
        return relaid
    }
}

extension EntityDefinition {
    /// Converts one JSON record: keys through the model's casing and reserved
    /// words, dates through its format. Errors name the record (`records[3]`,
    /// with its identifier) and the member.
    func stagedRecord(from json: JSON, at index: Int, dates: DateFormat) throws(StoreError) -> StagedRecord {
        // Built only for a message: most records have no error.
        try stagedRecord(from: json, at: "records[\(index)]", in: RecordForm(names: false, dates: dates), links: true)
    }

    /// Converts one record written in `form`, whose members are found by key or
    /// by name. With `links`, a to-one relationship is read as the
    /// destination's identifier and a to-many one as the list of its
    /// destinations' identifiers (staging); without, relationships are left to
    /// the caller (`RecordConversion`).
    func stagedRecord(from json: JSON, at path: @autoclosure () -> String, in form: RecordForm,
                      links: Bool) throws(StoreError) -> StagedRecord {
        guard case .object(let o) = json else {
            throw .invalidArgument(field: path(), reason: "expected a \(name) record (an object), got \(json.typeName)")
        }
        let idKey = attributeKey(identifierIndex, in: form)
        // The record as messages name it: `Album "Tin Drum"`.
        var label: String {
            guard let v = o[idKey], let id = identifierValue(v) else { return name }
            return self.label(id)
        }
        var attributeValues = [ColumnValue?](repeating: nil, count: attributes.count)
        var linkValues = [ColumnValue?](repeating: nil, count: relationships.count)
        var lists: [Int: [ColumnValue]] = [:]
        for m in o.members {
            guard let field = field(forKey: m.key) else {
                throw .invalidArgument(field: "\(path()).\(m.key)", reason: "\(label): \(noSuchField(m.key, names: form.names))")
            }
            switch field {
            case .attribute(let a):
                let attribute = attributes[a]
                if m.value.isNull {
                    guard attribute.isOptional else {
                        throw .invalidArgument(field: "\(path()).\(m.key)", reason: "\(label): \(m.key) is required (\(attribute.type.name)) and cannot be null")
                    }
                    attributeValues[a] = .null
                } else {
                    guard let v = attribute.columnValue(m.value, dates: form.dates) else {
                        throw .invalidArgument(field: "\(path()).\(m.key)", reason: "\(label): \(attribute.mismatch(m.value, dates: form.dates))")
                    }
                    attributeValues[a] = v
                }
            case .relationship(let r):
                guard links else { continue }
                guard let kind = linkKinds[r] else {
                    lists[r] = try members(m.value, of: r, at: "\(path()).\(m.key)", label: label)
                    continue
                }
                linkValues[r] = m.value.isNull
                    ? .null
                    : try reference(m.value, kind: kind, destination: relationships[r].destination, at: "\(path()).\(m.key)", label: label)
            }
        }
        guard let id = attributeValues[identifierIndex], !id.isNull else {
            throw .invalidArgument(field: path(), reason: "a \(name) record needs its identifier \"\(idKey)\"")
        }
        var record = StagedRecord(id: id, attributes: attributeValues, links: linkValues)
        record.lists = lists
        return record
    }

    /// The identifiers a to-many relationship's value lists: an array of
    /// identifiers of its destination, each once; null is the empty list.
    private func members(_ value: JSON, of r: Int, at path: @autoclosure () -> String,
                         label: @autoclosure () -> String) throws(StoreError) -> [ColumnValue] {
        let destination = relationships[r].destination
        if value.isNull { return [] }
        guard case .array(let elements) = value else {
            throw .invalidArgument(field: path(), reason: "\(label()): expected an array of \(destination) identifiers, got \(value.typeName)")
        }
        let kind = destinationKinds[r]
        var ids: [ColumnValue] = []
        var seen = Set<ColumnValue>()
        for (k, element) in elements.enumerated() {
            if element.objectValue != nil {
                throw .invalidArgument(field: "\(path())[\(k)]", reason: "\(label()): expected the identifier of a \(destination), got object (records nested in a to-many relationship are not written: stage them as \(destination) records and list their identifiers here)")
            }
            let id = try reference(element, kind: kind, destination: destination, at: "\(path())[\(k)]", label: label())
            guard seen.insert(id).inserted else {
                throw .invalidArgument(field: "\(path())[\(k)]", reason: "\(label()) lists \(destination) \(EntityDefinition.describe(id)) twice")
            }
            ids.append(id)
        }
        return ids
    }

    /// The identifier a relationship's value names: a string or an integral
    /// number, as the destination's identifier (`kind`) is.
    func reference(_ value: JSON, kind: ColumnKind, destination: String, at path: @autoclosure () -> String,
                   label: @autoclosure () -> String) throws(StoreError) -> ColumnValue {
        switch (kind, value) {
        case (.integer, .number(let n)) where n.int64 != nil: return .integer(n.int64!)
        case (.text, .string(let s)): return .text(s)
        default:
            let expected = kind == .integer ? "integer" : "string"
            throw .invalidArgument(field: path(), reason: "\(label()): expected the identifier of a \(destination) (\(expected)), got \(value.typeName)")
        }
    }
}
