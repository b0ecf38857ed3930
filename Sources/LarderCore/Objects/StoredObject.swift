import LarderJSON
import LarderStorage

/// How an object is kept: its value, tagged with its type and version, with
/// every nested object tagged the same way:
/// `{"$type": "Foo", "$version": "1.0.1", "$value": {…}}`. An object whose type
/// has a parent also records the version of each ancestor it was written
/// under, `"$parents": {"Base": "2"}`, since each level migrates on its own.
/// A nested object of a type that inherits from the type its field declares
/// also names the declared type, `"$declared": "Base"`: its plain value then
/// says which type it is, `{"$type": "Child", …}`, as a client writes it.
/// Without `$declared` (every object written before subtypes were allowed)
/// a nested object is of its field's declared type.
public struct StoredObject: Sendable {
    public var type: String
    public var version: SchemaVersion
    /// Field values; nested objects are still tagged.
    public var value: JSONObject
    /// Ancestor types and the versions the value was written under.
    public var parents: [(type: String, version: SchemaVersion)]
    /// The type the field holding this nested object declares, when `type` inherits from it.
    public var declared: String?

    static let typeKey = "$type", versionKey = "$version", valueKey = "$value", parentsKey = "$parents", declaredKey = "$declared"

    init(type: String, version: SchemaVersion, value: JSONObject, parents: [(type: String, version: SchemaVersion)] = [],
         declared: String? = nil) {
        self.type = type
        self.version = version
        self.value = value
        self.parents = parents
        self.declared = declared
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
        guard case .object(let o) = json, (3...5).contains(o.count),
              case .string(let t)? = o[Self.typeKey], case .string(let v)? = o[Self.versionKey],
              let version = SchemaVersion(v), case .object(let value)? = o[Self.valueKey] else { return nil }
        var parents: [(type: String, version: SchemaVersion)] = [], declared: String?, members = 3
        if let p = o[Self.parentsKey] {
            guard let parsed = Self.parents(from: p) else { return nil }
            parents = parsed
            members += 1
        }
        if let d = o[Self.declaredKey] {
            guard case .string(let name) = d, name != t else { return nil }
            declared = name
            members += 1
        }
        guard members == o.count else { return nil }
        self.init(type: t, version: version, value: value, parents: parents, declared: declared)
    }

    public var json: JSON {
        var o: JSONObject = [Self.typeKey: .string(type), Self.versionKey: .string(version.text), Self.valueKey: .object(value)]
        Self.tag(parents, in: &o)
        if let declared { o[Self.declaredKey] = .string(declared) }
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
    public var plainValue: JSON { plain(unsettingNulls: false) }

    /// The plain value with every field that is null left out, in this object
    /// and in the objects nested in it (not in maps or `json` values): HMCache
    /// has no null apart from unset, so `object.equals` and `object.hash`
    /// compare this, as descriptions print both alike.
    public var comparableValue: JSON { plain(unsettingNulls: true) }

    private func plain(unsettingNulls: Bool) -> JSON {
        var fields = value.members
        if unsettingNulls { fields.removeAll { $0.value.isNull } }
        var out = JSONObject(capacity: fields.count + 1)
        if declared != nil { out.append(Self.typeKey, .string(type)) }
        for f in fields { out.append(f.key, Self.plain(f.value, unsettingNulls: unsettingNulls)) }
        return .object(out)
    }

    static func plain(_ json: JSON, unsettingNulls: Bool = false) -> JSON {
        switch json {
        case .object(let o):
            if let nested = StoredObject(json) { return nested.plain(unsettingNulls: unsettingNulls) }
            return .object(JSONObject(o.members.map { ($0.key, plain($0.value, unsettingNulls: unsettingNulls)) }))
        case .array(let a):
            return .array(a.map { plain($0, unsettingNulls: unsettingNulls) })
        case .fragment(let f):
            return plain(f.parsed ?? .null, unsettingNulls: unsettingNulls)
        default:
            return json
        }
    }

    /// Where a nested object was written: its type, version and ancestors' versions.
    struct Origin {
        let type: String
        let version: SchemaVersion
        let parents: [(type: String, version: SchemaVersion)]
    }

    /// Nested tagged objects of a plain-ified value, by dotted path, so a
    /// migration can upgrade them after the parent's steps have run.
    static func origins(in json: JSON, prefix: String = "") -> [String: Origin] {
        var result: [String: Origin] = [:]
        func visit(_ j: JSON, _ path: String) {
            switch j {
            case .object(let o):
                if let nested = StoredObject(j) {
                    result[path] = Origin(type: nested.type, version: nested.version, parents: nested.parents)
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
