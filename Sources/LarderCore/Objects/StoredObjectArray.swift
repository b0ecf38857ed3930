import LarderJSON

/// An array of objects of one type kept under one key (HMCache's
/// `+cacheArray:forKey:`), tagged once for all its elements:
/// `{"$type": "Foo", "$version": "1.0.1", "$values": [{…}, …]}`, with
/// `"$parents"` for a type with a parent. Every element is at that version
/// (they are written together and migrated together); objects nested in an
/// element are tagged as in a `StoredObject`.
public struct StoredObjectArray: Sendable {
    public var type: String
    public var version: SchemaVersion
    /// Each element's field values; nested objects are still tagged.
    public var values: [JSONObject]
    public var parents: [(type: String, version: SchemaVersion)]

    static let valuesKey = "$values"

    init(type: String, version: SchemaVersion, values: [JSONObject], parents: [(type: String, version: SchemaVersion)]) {
        self.type = type
        self.version = version
        self.values = values
        self.parents = parents
    }

    /// Reads a tagged array; nil for anything else.
    public init?(_ json: JSON) {
        guard case .object(let o) = json, o.count == 3 || o.count == 4,
              case .string(let t)? = o[StoredObject.typeKey], case .string(let v)? = o[StoredObject.versionKey],
              let version = SchemaVersion(v), case .array(let elements)? = o[Self.valuesKey] else { return nil }
        var values: [JSONObject] = []
        for e in elements {
            guard case .object(let value) = e else { return nil }
            values.append(value)
        }
        var parents: [(type: String, version: SchemaVersion)] = []
        if o.count == 4 {
            guard let p = StoredObject.parents(from: o[StoredObject.parentsKey]) else { return nil }
            parents = p
        }
        self.init(type: t, version: version, values: values, parents: parents)
    }

    public var json: JSON {
        var o: JSONObject = [StoredObject.typeKey: .string(type), StoredObject.versionKey: .string(version.text),
                             Self.valuesKey: .array(values.map(JSON.object))]
        StoredObject.tag(parents, in: &o)
        return .object(o)
    }

    /// The elements, each as a tagged object.
    public var elements: [StoredObject] {
        values.map { StoredObject(type: type, version: version, value: $0, parents: parents) }
    }

    /// The elements as users see them: plain values.
    public var plainValues: [JSON] { elements.map(\.plainValue) }

    /// Each element's `comparableValue`.
    public var comparableValues: [JSON] { elements.map(\.comparableValue) }
}
