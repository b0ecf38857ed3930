import LarderJSON
import LarderStorage

/// HMCache's JSON description of objects: an object as `{"*Type": {…}}`, its
/// parent's fields inside as `"**Parent": {…}`, extension fields as
/// `"(Category)field"` (those of the unnamed category as `"field"`), every field of the schema present, an absent one as
/// null (HMCache prints `"barObjectDate" : null`); an array of objects as an
/// array of such descriptions.
public struct ObjectDescription {
    let objects: ObjectStore

    public init(store: Store) { objects = store.objects }

    public func describe(_ stored: StoredObject) throws(StoreError) -> JSON {
        ["*\(stored.type)": try body(type: stored.type, version: stored.version, value: stored.value)]
    }

    public func describe(_ content: ObjectContent) throws(StoreError) -> JSON {
        switch content {
        case .single(let stored):
            return try describe(stored)
        case .array(let array):
            var out: [JSON] = []
            for element in array.elements { out.append(try describe(element)) }
            return .array(out)
        }
    }

    private func body(type: String, version: SchemaVersion?, value: JSONObject) throws(StoreError) -> JSON {
        var schema: TypeSchema?
        if let version { schema = try objects.schema(of: type, version: version) }
        if schema == nil { schema = try objects.newestSchema(of: type) }
        guard let schema else {
            // The type is gone: its fields as they are.
            var out = JSONObject()
            for (name, v) in value.members { out.append(name, try describeValue(v)) }
            return .object(out)
        }
        var out = JSONObject()
        var inherited = value
        for f in schema.ownFields {
            // HMCache prefixes a category property with its category's name,
            // and one registered without a category name with nothing.
            let label = schema.category(of: f.name).flatMap { $0.isEmpty ? nil : "(\($0))\(f.name)" } ?? f.name
            out.append(label, try value[f.name].map(describeValue) ?? .null)
            inherited[f.name] = nil
        }
        if let parent = schema.parent {
            out.append("**\(parent)", try body(type: parent, version: nil, value: inherited))
        }
        return .object(out)
    }

    private func describeValue(_ v: JSON) throws(StoreError) -> JSON {
        switch v {
        case .object(let o):
            if let nested = StoredObject(v) { return try describe(nested) }
            var out = JSONObject()
            for (name, member) in o.members { out.append(name, try describeValue(member)) }
            return .object(out)
        case .array(let a):
            return .array(try a.map(describeValue))
        default:
            return v
        }
    }
}

/// Canonical JSON and a stable hash over it, for `object.equals` and `object.hash`.
///
/// Canonical form: object members sorted by the UTF-8 bytes of their names,
/// no whitespace, integral values (`1.0`, `1e17`) in plain decimal, other numbers in the shortest form
/// that reads back as the same double, strings escaped minimally. The hash is
/// 64-bit FNV-1a over the canonical bytes of `{"type":T,"value":V}`, written as
/// 16 lowercase hex digits: the same in every process and every Larder version.
public enum CanonicalJSON {
    public static func canonical(_ v: JSON) -> JSON {
        switch v {
        case .object(let o):
            var last: [String: JSON] = [:]
            for m in o.members { last[m.key] = canonical(m.value) }
            let sorted = last.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            return .object(JSONObject(sorted.map { ($0.key, $0.value) }))
        case .array(let a):
            return .array(a.map(canonical))
        case .number(let n):
            if let i = n.int64 { return .number(JSONNumber(i)) }
            // Equal values hash alike: an integral value (1e17) is written as the integer it is.
            let d = n.double
            if d == d.rounded(), abs(d) < 9.2e18 { return .number(JSONNumber(Int64(d))) }
            return .number(JSONNumber(d))
        case .fragment(let f):
            return canonical(f.parsed ?? .null)
        default:
            return v
        }
    }

    public static func hash(type: String, value: JSON) -> String {
        hash(of: ["type": .string(type), "value": value])
    }

    /// The hash of an array of objects: over `{"type":T,"values":[V, …]}`,
    /// so that it never equals the hash of one object.
    public static func hash(type: String, values: [JSON]) -> String {
        hash(of: ["type": .string(type), "values": .array(values)])
    }

    public static func hash(of content: ObjectContent) -> String {
        switch content {
        case .single(let o): return hash(type: o.type, value: o.comparableValue)
        case .array(let a): return hash(type: a.type, values: a.comparableValues)
        }
    }

    private static func hash(of json: JSON) -> String {
        let bytes = canonical(json).encoded
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes {
            h ^= UInt64(b)
            h = h &* 0x0000_0100_0000_01B3
        }
        let hex = String(h, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
