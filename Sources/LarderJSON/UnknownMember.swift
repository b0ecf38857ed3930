/// A member an object may not have: where it is, the names the object may
/// have, and the one that was most likely meant.
///
/// Every place that reads an object of known shape (a method's params, a
/// model or schema definition) refuses other members with this, so that a
/// typo such as `tll` for `ttl` fails loudly instead of being ignored.
public struct UnknownMember: Error, Equatable, Sendable {
    /// The member's full path, e.g. `params.entries[3].tll`.
    public let path: String
    /// The member's name as given.
    public let name: String
    /// Every member the object may have, in the order they are documented.
    public let expected: [String]
    /// The known name closest to the one given, if one is close enough.
    public let suggestion: String?

    public init(path: String, name: String, expected: [String]) {
        self.path = path
        self.name = name
        self.expected = expected
        suggestion = NearestName.suggestion(for: name, among: expected)
    }

    /// The same member seen from `prefix` (`params` for a path read relative to a request's params).
    public func located(under prefix: String) -> UnknownMember {
        UnknownMember(path: "\(prefix).\(path)", name: name, expected: expected)
    }
}

extension JSONObject {
    /// The first member not among `known`, located under `path`.
    public func unknownMember(knowing known: [String], at path: String) -> UnknownMember? {
        for m in members where !known.contains(m.key) {
            return UnknownMember(path: path.isEmpty ? m.key : "\(path).\(m.key)", name: m.key, expected: known)
        }
        return nil
    }
}
