import LarderJSON
import LarderStorage

/// Checks values against the newest schemas and tags them for storage.
/// Errors name the path (`value.bar.count`) and what was expected.
public struct ObjectValidator {
    let objects: ObjectStore
    /// Nested objects that came from storage at an older version: upgrade them before validating.
    var upgradeNested: ((_ path: String, _ origin: StoredObject.Origin, _ value: JSON) throws -> JSON)?
    /// Where nested objects were written (type and versions), by path relative to the top object.
    var origins: [String: StoredObject.Origin] = [:]

    init(objects: ObjectStore) { self.objects = objects }

    /// `value` validated against the newest schema of `type`, tagged for storage.
    public static func tagged(_ value: JSON, as type: String, version: SchemaVersion? = nil,
                              store: Store) throws(StoreError) -> StoredObject {
        try tagged(value, as: type, version: version, objects: store.objects)
    }

    static func tagged(_ value: JSON, as type: String, version: SchemaVersion? = nil,
                       objects: ObjectStore) throws(StoreError) -> StoredObject {
        do {
            return try ObjectValidator(objects: objects).tag(value, as: type, version: version, path: "value")
        } catch let e as StoreError {
            throw e
        } catch {
            throw .invalidObject(path: "value", reason: "\(error)")
        }
    }

    /// Every element of `values` validated as `tagged` validates one object,
    /// all at one version, their paths `values[i]`; tagged as one array.
    public static func taggedArray(_ values: [JSON], as type: String, version: SchemaVersion? = nil,
                                   store: Store) throws(StoreError) -> StoredObjectArray {
        let validator = ObjectValidator(objects: store.objects)
        let schema = try validator.schema(of: type, at: version)
        do {
            var elements: [JSONObject] = []
            for (k, v) in values.enumerated() {
                elements.append(try validator.tag(v, as: type, version: schema.version, path: "values[\(k)]").value)
            }
            let parents = try store.objects.ancestors(of: schema).map { (type: $0.type, version: $0.version) }
            return StoredObjectArray(type: type, version: schema.version, values: elements, parents: parents)
        } catch let e as StoreError {
            throw e
        } catch {
            throw .invalidObject(path: "values", reason: "\(error)")
        }
    }

    /// The schema of `type` at `version`, or its newest when nil.
    func schema(of type: String, at version: SchemaVersion?) throws(StoreError) -> TypeSchema {
        guard let version else {
            guard let newest = try objects.newestSchema(of: type) else { throw .schemaNotFound(type) }
            return newest
        }
        guard let schema = try objects.schema(of: type, version: version) else {
            guard try objects.newestSchema(of: type) != nil else { throw .schemaNotFound(type) }
            throw .schemaVersionNotFound(type: type, version: version.text)
        }
        return schema
    }

    /// A tagged object of `type` at `version` (its newest when nil), defaults
    /// filled in. Objects in its `ref` fields are always at their newest.
    func tag(_ value: JSON, as type: String, version: SchemaVersion? = nil, path: String, relative: String = "") throws -> StoredObject {
        let schema = try schema(of: type, at: version)
        guard case .object(let o) = value else {
            throw StoreError.invalidObject(path: path, reason: "expected an object of type \(type), got \(value.typeName)")
        }
        let ancestors = try objects.ancestors(of: schema)
        let fields = (ancestors.reversed() + [schema]).flatMap(\.ownFields)
        let names = Set(fields.map(\.name))
        for m in o.members where !names.contains(m.key) {
            throw StoreError.invalidObject(path: "\(path).\(m.key)", reason: "\(type) \(schema.version) has no field \"\(m.key)\"")
        }
        var out = JSONObject()
        for f in fields {
            let fieldPath = "\(path).\(f.name)", rel = StoredObject.join(relative, f.name)
            if let v = o[f.name], !v.isNull {
                out.append(f.name, try check(v, f.type, path: fieldPath, relative: rel))
            } else if let d = f.defaultValue {
                out.append(f.name, try check(d, f.type, path: fieldPath, relative: rel))
            } else if f.type.isOptional {
                if o[f.name] != nil { out.append(f.name, .null) }
            } else {
                throw StoreError.invalidObject(path: fieldPath, reason: "missing required field of type \(f.type.name)")
            }
        }
        return StoredObject(type: type, version: schema.version, value: out,
                            parents: ancestors.map { (type: $0.type, version: $0.version) })
    }

    func check(_ v: JSON, _ t: FieldType, path: String, relative: String) throws -> JSON {
        func mismatch() -> StoreError {
            if case .number(let n) = v, t == .integer, let range = n.integerRange {
                return .invalidObject(path: path, reason: "expected integer \(range), got \(n.literal)")
            }
            return .invalidObject(path: path, reason: "expected \(t.name), got \(v.typeName)")
        }
        switch t {
        case .optional(let inner):
            return v.isNull ? .null : try check(v, inner, path: path, relative: relative)
        case .json:
            return v.resolved
        case .string:
            guard case .string = v else { throw mismatch() }
            return v
        case .integer:
            guard case .number(let n) = v, n.int64 != nil else { throw mismatch() }
            return v
        case .number:
            guard case .number = v else { throw mismatch() }
            return v
        case .bool:
            guard case .bool = v else { throw mismatch() }
            return v
        case .date:
            guard case .string(let s) = v, Timestamp.parse(s) != nil else {
                throw StoreError.invalidObject(path: path, reason: "expected a date (RFC 3339, such as 2026-01-01T00:00:00Z), got \(v)")
            }
            return v
        case .data:
            guard case .string(let s) = v, Base64.decode(s) != nil else {
                throw StoreError.invalidObject(path: path, reason: "expected data (base64), got \(v.typeName)")
            }
            return v
        case .array(let element):
            guard case .array(let a) = v else { throw mismatch() }
            var out: [JSON] = []
            for (k, e) in a.enumerated() {
                out.append(try check(e, element, path: "\(path)[\(k)]", relative: StoredObject.join(relative, String(k))))
            }
            return .array(out)
        case .map(let element):
            guard case .object(let o) = v else { throw mismatch() }
            var out = JSONObject()
            for m in o.members {
                out.append(m.key, try check(m.value, element, path: "\(path).\(m.key)", relative: StoredObject.join(relative, m.key)))
            }
            return .object(out)
        case .ref(let declared):
            // An object of a type inheriting from the declared one says so in `$type`.
            guard case .object(var o) = v, let named = o[StoredObject.typeKey] else {
                return try nested(v, as: declared, declared: declared, path: path, relative: relative)
            }
            o[StoredObject.typeKey] = nil
            let type = try subtype(named, of: declared, path: "\(path).\(StoredObject.typeKey)")
            return try nested(.object(o), as: type, declared: declared, path: path, relative: relative)
        }
    }

    /// A nested object of `type`, brought up to date first when a migration
    /// found it stored at older versions, tagged with the type its field declares
    /// when that is another.
    private func nested(_ v: JSON, as type: String, declared: String, path: String, relative: String) throws -> JSON {
        var value = v
        if let origin = origins[relative], origin.type == type, let upgrade = upgradeNested {
            value = try upgrade(relative, origin, v)
        }
        var stored = try tag(value, as: type, path: path, relative: relative)
        if type != declared { stored.declared = declared }
        return stored.json
    }

    /// The type a nested object's `$type` names: `declared` itself, or a
    /// registered type that inherits from it.
    private func subtype(_ named: JSON, of declared: String, path: String) throws -> String {
        guard case .string(let name) = named else {
            throw StoreError.invalidObject(path: path, reason: "expected the name of \(declared) or of a type inheriting from it, got \(named.typeName)")
        }
        if name == declared { return name }
        if let schema = try objects.newestSchema(of: name) {
            guard try objects.ancestors(of: schema).contains(where: { $0.type == declared }) else {
                throw StoreError.invalidObject(path: path, reason: "\(name) does not inherit from \(declared)")
            }
            return name
        }
        var candidates: [String] = []
        for type in try objects.schemaTypes() {
            guard let schema = try objects.newestSchema(of: type) else { continue }
            // A type whose ancestry is broken (a parent not registered) suggests nothing.
            if type == declared || ((try? objects.ancestors(of: schema)) ?? []).contains(where: { $0.type == declared }) {
                candidates.append(type)
            }
        }
        let meant = NearestName.suggestion(for: name, among: candidates).map { " (did you mean \($0)?)" } ?? ""
        throw StoreError.invalidObject(path: path, reason: "no type \"\(name)\" is registered\(meant)")
    }
}
