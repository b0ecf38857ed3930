/// A JSON object: members in the order they were written.
///
/// Lookups are linear. Request objects have a handful of members, where a scan
/// beats hashing; values stored by users are passed through, not searched.
/// With duplicate names the last one wins, as in JavaScript.
public struct JSONObject: Sendable {
    public var members: [(key: String, value: JSON)]

    public init() { members = [] }

    /// An empty object with room for `capacity` members, so that building it does not regrow.
    public init(capacity: Int) {
        members = []
        members.reserveCapacity(capacity)
    }

    public init(_ members: [(String, JSON)]) {
        self.members = members.map { (key: $0.0, value: $0.1) }
    }

    public var count: Int { members.count }
    public var isEmpty: Bool { members.isEmpty }
    public var keys: [String] { members.map(\.key) }

    public subscript(key: String) -> JSON? {
        get {
            var i = members.count - 1
            while i >= 0 {
                if members[i].key == key { return members[i].value }
                i -= 1
            }
            return nil
        }
        set {
            if let i = members.lastIndex(where: { $0.key == key }) {
                if let newValue { members[i].value = newValue } else { members.remove(at: i) }
            } else if let newValue {
                members.append((key: key, value: newValue))
            }
        }
    }

    /// Appends without looking for an existing member; for building results.
    public mutating func append(_ key: String, _ value: JSON) {
        members.append((key: key, value: value))
    }
}

extension JSONObject: Equatable {
    /// Same set of names with equal values; order is ignored.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        let l = lhs.deduplicated, r = rhs.deduplicated
        guard l.count == r.count else { return false }
        for (key, value) in l {
            guard let other = r[key], other == value else { return false }
        }
        return true
    }

    private var deduplicated: [String: JSON] {
        var d: [String: JSON] = [:]
        for m in members { d[m.key] = m.value }
        return d
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, JSON)...) { self.init(elements) }
}
