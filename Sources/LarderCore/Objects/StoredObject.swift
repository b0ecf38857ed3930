import LarderJSON

/// How an object is kept: its value, tagged with its type and version, with
/// every nested object tagged the same way:
/// `{"$type": "Foo", "$version": "1.0.1", "$value": {…}}`. An object whose type
/// has a parent also records the version of each ancestor it was written
/// under, `"$parents": {"Base": "2"}`, since each level migrates on its own.
public struct StoredObject: Sendable {
    public var type: String
    public var version: SchemaVersion
    /// Field values; nested objects are still tagged.
    public var value: JSONObject
    /// Ancestor types and the versions the value was written under.
    public var parents: [(type: String, version: SchemaVersion)]

    static let typeKey = "$type", versionKey = "$version", valueKey = "$value", parentsKey = "$parents"

    init(type: String, version: SchemaVersion, value: JSONObject, parents: [(type: String, version: SchemaVersion)] = []) {
        self.type = type
        self.version = version
        self.value = value
        self.parents = parents
    }

    /// An object whose type is no longer registered, as a plain map.
    public init(untyped type: String, version: String, value: JSON) throws(StoreError) {
        guard let v = SchemaVersion(version), case .object(let o) = value else {
            throw .invalidObject(path: "value", reason: "not an object")
        }
        self.init(type: type, version: v, value: o)
    }

    /// Reads a tagged object; nil for anything else.
    public init?(_ json: JSON) {
        guard case .object(let o) = json, o.count == 3 || o.count == 4,
              case .string(let t)? = o[Self.typeKey], case .string(let v)? = o[Self.versionKey],
              let version = SchemaVersion(v), case .object(let value)? = o[Self.valueKey] else { return nil }
        var parents: [(type: String, version: SchemaVersion)] = []
        if o.count == 4 {
            guard let p = Self.parents(from: o[Self.parentsKey]) else { return nil }
            parents = p
        }
        self.init(type: t, version: version, value: value, parents: parents)
    }

    public var json: JSON {
        var o: JSONObject = [Self.typeKey: .string(type), Self.versionKey: .string(version.text), Self.valueKey: .object(value)]
        Self.tag(parents, in: &o)
        return .object(o)
    }

    /// Reads a `$parents` member; nil when it is not a map of versions.
    static func parents(from json: JSON?) -> [(type: String, version: SchemaVersion)]? {
        guard case .object(let p)? = json else { return nil }
        var parents: [(type: String, version: SchemaVersion)] = []
        for m in p.members {
            guard case .string(let pv) = m.value, let parsed = SchemaVersion(pv) else { return nil }
            parents.append((m.key, parsed))
        }
        return parents
    }

    /// Adds `$parents` to a tagged form, when there are any.
    static func tag(_ parents: [(type: String, version: SchemaVersion)], in o: inout JSONObject) {
        if !parents.isEmpty {
            o[parentsKey] = .object(JSONObject(parents.map { ($0.type, .string($0.version.text)) }))
        }
    }

    /// The value as users see it: nested objects as plain maps.
    public var plainValue: JSON { Self.plain(.object(value)) }

    static func plain(_ json: JSON) -> JSON {
        switch json {
        case .object(let o):
            if let nested = StoredObject(json) { return nested.plainValue }
            return .object(JSONObject(o.members.map { ($0.key, plain($0.value)) }))
        case .array(let a):
            return .array(a.map(plain))
        case .fragment(let f):
            return plain(f.parsed ?? .null)
        default:
            return json
        }
    }

    /// Nested tagged objects of a plain-ified value, by dotted path, so a
    /// migration can upgrade them after the parent's steps have run.
    static func origins(in json: JSON, prefix: String = "") -> [String: (type: String, version: SchemaVersion)] {
        var result: [String: (type: String, version: SchemaVersion)] = [:]
        func visit(_ j: JSON, _ path: String) {
            switch j {
            case .object(let o):
                if let nested = StoredObject(j) {
                    result[path] = (nested.type, nested.version)
                    for m in nested.value.members { visit(m.value, join(path, m.key)) }
                } else {
                    for m in o.members { visit(m.value, join(path, m.key)) }
                }
            case .array(let a):
                for (k, e) in a.enumerated() { visit(e, join(path, String(k))) }
            default:
                break
            }
        }
        for m in (json.objectValue ?? JSONObject()).members { visit(m.value, join(prefix, m.key)) }
        return result
    }

    static func join(_ a: String, _ b: String) -> String { a.isEmpty ? b : a + "." + b }
}
