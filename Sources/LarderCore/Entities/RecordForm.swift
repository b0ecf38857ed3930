/// The two ways a record is written. The *JSON form* is the backend's: keys
/// by the model's casing and reserved words, dates in its `dateFormat`; it is
/// what `entity.stage` takes and `entity.get` returns. The *model form* is
/// the model's own (JSONCache's struct): attribute and relationship names as
/// defined, dates in RFC 3339 as the `iso8601` format writes them; it is what
/// `entity.render` takes and `entity.parse` returns.
struct RecordForm: Sendable {
    /// Members are written under their names rather than their JSON keys.
    var names: Bool
    var dates: DateFormat

    static func json(of model: EntityModel) -> RecordForm { RecordForm(names: false, dates: model.dateFormat) }
    static let model = RecordForm(names: true, dates: .iso8601)
}

extension EntityDefinition {
    /// What attribute `a` is written as in `form`.
    func attributeKey(_ a: Int, in form: RecordForm) -> String { form.names ? attributes[a].name : attributeKeys[a] }

    /// What relationship `r` is written as in `form`.
    func relationshipKey(_ r: Int, in form: RecordForm) -> String { form.names ? relationships[r].name : relationshipKeys[r] }

    /// A record for messages: `Album "Tin Drum"`.
    func label(_ id: ColumnValue) -> String { "\(name) \(Self.describe(id))" }
}
