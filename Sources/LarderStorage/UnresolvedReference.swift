import LarderJSON

/// A to-one reference whose destination record exists nowhere.
public struct UnresolvedReference: Equatable, Sendable {
    /// The entity and identifier of the referring record.
    public var entity: String
    public var id: JSON
    public var relationship: String
    /// The entity and identifier referred to.
    public var destination: String
    public var missingID: JSON

    package init(entity: String, id: JSON, relationship: String, destination: String, missingID: JSON) {
        self.entity = entity
        self.id = id
        self.relationship = relationship
        self.destination = destination
        self.missingID = missingID
    }
}
