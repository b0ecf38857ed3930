import LarderJSON

/// One record converted from JSON and checked, waiting to be applied.
struct StagedRecord: Sendable {
    var id: ColumnValue
    /// Per attribute: nil when the JSON did not mention it (the stored value
    /// stays), `.null` for an explicit null (the value is cleared).
    var attributes: [ColumnValue?]
    /// Per relationship: nil when not mentioned (and always for to-many ones),
    /// `.null` to unlink, or the destination's identifier.
    var links: [ColumnValue?]

    /// Takes every member `newer` mentions; the rest stays.
    mutating func merge(_ newer: StagedRecord) {
        for (k, v) in newer.attributes.enumerated() where v != nil { attributes[k] = v }
        for (k, v) in newer.links.enumerated() where v != nil { links[k] = v }
    }

    /// The same record laid out for another definition of its entity (one
    /// that only added attributes or relationships).
    func relaid(from old: EntityDefinition, to new: EntityDefinition) -> StagedRecord {
        StagedRecord(
            id: id,
            attributes: new.attributes.map { a in old.attributeIndex(a.name).flatMap { attributes[$0] } },
            links: new.relationships.map { r in old.relationshipIndex(r.name).flatMap { links[$0] } })
    }
}

extension EntityDefinition {
    /// Converts one JSON record: keys through the model's casing and reserved
    /// words, dates through its format. Errors name the record (`records[3]`,
    /// with its identifier) and the member.
    func stagedRecord(from json: JSON, at index: Int, dates: DateFormat) throws(StoreError) -> StagedRecord {
        // Built only for a message: most records have no error.
        var path: String { "records[\(index)]" }
        guard case .object(let o) = json else {
            throw .invalidArgument(field: path, reason: "expected a \(name) record (an object), got \(json.typeName)")
        }
        let idKey = attributeKeys[identifierIndex]
        // The record as messages name it: `Album "Tin Drum"`.
        var label: String {
            guard let v = o[idKey], let id = identifierValue(v) else { return name }
            return "\(name) \(Self.describe(id))"
        }
        var attributeValues = [ColumnValue?](repeating: nil, count: attributes.count)
        var linkValues = [ColumnValue?](repeating: nil, count: relationships.count)
        for m in o.members {
            guard let field = field(forKey: m.key) else {
                throw .invalidArgument(field: "\(path).\(m.key)", reason: "\(label): \(noSuchField(m.key))")
            }
            switch field {
            case .attribute(let a):
                let attribute = attributes[a]
                if m.value.isNull {
                    guard attribute.isOptional else {
                        throw .invalidArgument(field: "\(path).\(m.key)", reason: "\(label): \(m.key) is required (\(attribute.type.name)) and cannot be null")
                    }
                    attributeValues[a] = .null
                } else {
                    guard let v = attribute.columnValue(m.value, dates: dates) else {
                        throw .invalidArgument(field: "\(path).\(m.key)", reason: "\(label): \(attribute.mismatch(m.value, dates: dates))")
                    }
                    attributeValues[a] = v
                }
            case .relationship(let r):
                // A to-many relationship is what its inverse says; a list here would be a second truth.
                guard let kind = linkKinds[r] else { continue }
                if m.value.isNull {
                    linkValues[r] = .null
                } else {
                    switch (kind, m.value) {
                    case (.integer, .number(let n)) where n.int64 != nil: linkValues[r] = .integer(n.int64!)
                    case (.text, .string(let s)): linkValues[r] = .text(s)
                    default:
                        let expected = kind == .integer ? "integer" : "string"
                        throw .invalidArgument(field: "\(path).\(m.key)",
                                               reason: "\(label): expected the identifier of a \(relationships[r].destination) (\(expected)), got \(m.value.typeName)")
                    }
                }
            }
        }
        guard let id = attributeValues[identifierIndex], !id.isNull else {
            throw .invalidArgument(field: path, reason: "a \(name) record needs its identifier \"\(idKey)\"")
        }
        return StagedRecord(id: id, attributes: attributeValues, links: linkValues)
    }
}
