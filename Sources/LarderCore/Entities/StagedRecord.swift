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
        try stagedRecord(from: json, at: "records[\(index)]", in: RecordForm(names: false, dates: dates), links: true)
    }

    /// Converts one record written in `form`, whose members are found by key or
    /// by name. With `links`, a to-one relationship is read as the
    /// destination's identifier and a to-many one is ignored (staging);
    /// without, relationships are left to the caller (`RecordConversion`).
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
                // A to-many relationship is what its inverse says; a list here would be a second truth.
                guard links, let kind = linkKinds[r] else { continue }
                linkValues[r] = m.value.isNull
                    ? .null
                    : try reference(m.value, kind: kind, destination: relationships[r].destination, at: "\(path()).\(m.key)", label: label)
            }
        }
        guard let id = attributeValues[identifierIndex], !id.isNull else {
            throw .invalidArgument(field: path(), reason: "a \(name) record needs its identifier \"\(idKey)\"")
        }
        return StagedRecord(id: id, attributes: attributeValues, links: linkValues)
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
