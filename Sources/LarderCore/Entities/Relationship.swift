import LarderJSON
import LarderStorage

/// What deleting a record does to the records a relationship connects it to.
public enum DeleteRule: String, CaseIterable, Sendable {
    /// The related records stay; their references to the deleted one are cleared.
    case nullify
    /// The related records are deleted too (applying their own rules).
    case cascade
    /// The delete is refused while any related record exists.
    case deny
}

/// A relationship of an entity. A to-one relationship is a column holding the
/// destination's identifier; a to-many relationship stores nothing: it is the
/// set of destination records whose inverse to-one points back.
public struct Relationship: Equatable, Sendable {
    public var name: String
    public var destination: String
    public var toMany: Bool
    /// The relationship on the destination that mirrors this one, as declared
    /// (it may be declared on the other side only).
    public var inverse: String?
    public var deleteRule: DeleteRule

    public init(name: String, destination: String, toMany: Bool = false, inverse: String? = nil, deleteRule: DeleteRule = .nullify) {
        self.name = name
        self.destination = destination
        self.toMany = toMany
        self.inverse = inverse
        self.deleteRule = deleteRule
    }

    /// Reads `{name, destination, toMany?, inverse?, deleteRule?}`.
    init(json: JSON, at path: String) throws(StoreError) {
        guard case .object(let o) = json else {
            throw .invalidArgument(field: path, reason: "a relationship is an object {name, destination, toMany?, inverse?, deleteRule?}")
        }
        try o.checkMembers(["name", "destination", "toMany", "inverse", "deleteRule"], at: path)
        guard case .string(let name) = o["name"] ?? .null, EntityTable.isUsableName(name) else {
            throw .invalidArgument(field: "\(path).name", reason: "a relationship needs a non-empty name without dots (dots separate include paths) or U+0000")
        }
        guard case .string(let destination) = o["destination"] ?? .null, !destination.isEmpty else {
            throw .invalidArgument(field: "\(path).destination", reason: "relationship \(name) needs the name of its destination entity")
        }
        var toMany = false
        if let v = o["toMany"], !v.isNull {
            guard case .bool(let b) = v else { throw .invalidArgument(field: "\(path).toMany", reason: "expected boolean, got \(v.typeName)") }
            toMany = b
        }
        var inverse: String?
        if let v = o["inverse"], !v.isNull {
            guard case .string(let s) = v, !s.isEmpty else {
                throw .invalidArgument(field: "\(path).inverse", reason: "expected the name of a relationship of \(destination)")
            }
            inverse = s
        }
        var rule = DeleteRule.nullify
        if let v = o["deleteRule"], !v.isNull {
            guard case .string(let s) = v, let r = DeleteRule(rawValue: s) else {
                throw .invalidArgument(field: "\(path).deleteRule", reason: "expected \"nullify\", \"cascade\" or \"deny\", got \(v)")
            }
            rule = r
        }
        self.init(name: name, destination: destination, toMany: toMany, inverse: inverse, deleteRule: rule)
    }

    var json: JSON {
        var o: JSONObject = ["name": .string(name), "destination": .string(destination), "toMany": .bool(toMany)]
        if let inverse { o.append("inverse", .string(inverse)) }
        o.append("deleteRule", .string(deleteRule.rawValue))
        return .object(o)
    }
}
