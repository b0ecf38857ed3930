/// What redefining a model changes. Additions are made in place (new tables,
/// new nullable columns); anything else would change or drop stored data, so
/// it is refused, naming each change.
struct ModelRevision {
    /// Entities the old model did not have: new tables.
    var newEntities: [EntityDefinition] = []
    /// Optional attributes added to existing entities: new columns.
    var addedAttributes: [(entity: String, attribute: EntityAttribute)] = []
    /// Relationships added to existing entities (a to-one one is a new nullable column).
    var addedRelationships: [(entity: String, relationship: Relationship)] = []
    /// Changes that cannot be made in place, as sentences.
    var refused: [String] = []

    init(from old: EntityModel, to new: EntityModel) {
        if old.casing != new.casing { refused.append("casing changed from \(old.casing.rawValue) to \(new.casing.rawValue)") }
        if old.dateFormat != new.dateFormat { refused.append("dateFormat changed from \(old.dateFormat.rawValue) to \(new.dateFormat.rawValue)") }
        if Set(old.reservedWords) != Set(new.reservedWords) {
            refused.append("reservedWords changed from [\(old.reservedWords.joined(separator: ", "))] to [\(new.reservedWords.joined(separator: ", "))]")
        }
        for e in old.entities where new.entity(named: e.name) == nil { refused.append("entity \(e.name) removed") }
        for e in new.entities {
            guard let before = old.entity(named: e.name) else {
                newEntities.append(e)
                continue
            }
            compare(before, e)
        }
    }

    private mutating func compare(_ old: EntityDefinition, _ new: EntityDefinition) {
        let entity = new.name
        if old.identifier != new.identifier { refused.append("\(entity).identifier changed from \(old.identifier) to \(new.identifier)") }
        for a in old.attributes {
            guard let now = new.attributeIndex(a.name).map({ new.attributes[$0] }) else {
                refused.append("attribute \(entity).\(a.name) removed")
                continue
            }
            if now.type != a.type { refused.append("attribute \(entity).\(a.name) changed from \(a.type.name) to \(now.type.name)") }
        }
        for a in new.attributes where old.attributeIndex(a.name) == nil {
            if a.isOptional {
                addedAttributes.append((entity, a))
            } else {
                refused.append("attribute \(entity).\(a.name) added as required \(a.type.name) (existing records have no value; add it as \(a.type.name)?)")
            }
        }
        for r in old.relationships {
            guard let now = new.relationshipIndex(r.name).map({ new.relationships[$0] }) else {
                refused.append("relationship \(entity).\(r.name) removed")
                continue
            }
            var changes: [String] = []
            if now.destination != r.destination { changes.append("destination \(r.destination) → \(now.destination)") }
            if now.toMany != r.toMany { changes.append("toMany \(r.toMany) → \(now.toMany)") }
            if now.inverse != r.inverse { changes.append("inverse \(r.inverse ?? "none") → \(now.inverse ?? "none")") }
            if now.deleteRule != r.deleteRule { changes.append("deleteRule \(r.deleteRule.rawValue) → \(now.deleteRule.rawValue)") }
            if !changes.isEmpty { refused.append("relationship \(entity).\(r.name) changed: \(changes.joined(separator: ", "))") }
        }
        for r in new.relationships where old.relationshipIndex(r.name) == nil {
            addedRelationships.append((entity, r))
        }
    }
}
