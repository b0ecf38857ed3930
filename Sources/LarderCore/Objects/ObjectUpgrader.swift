import LarderJSON
import LarderStorage

/// What the client answered to a `migrate.object` callback.
public enum CallbackAnswer: Sendable {
    case value(JSON)
    case drop
    case failure(String)
}

/// A question for the client: migrate this value between these versions.
public struct CallbackRequest: Sendable {
    /// Identifies the question within one object's migration, so the answer can be replayed.
    public let id: String
    public let type: String
    public let fromVersion: String
    public let toVersion: String
    public let value: JSON
    /// Where the object is in an array of objects; nil for a single object.
    public let index: Int?
}

/// Why a migration stopped before producing an object.
public enum MigrationStop: Error {
    case failed(StoreError)
    /// The client must answer this first; run the migration again with the answer.
    case needsCallback(CallbackRequest)
    /// The client asked for the object to be dropped.
    case drop
}

/// Moves an object's value from its stored version to the newest, along the
/// registered migrations (chained), validating the result.
///
/// Deterministic: a migration interrupted for a callback is simply run again
/// with the answers collected so far, so the core never waits.
struct ObjectUpgrader {
    let objects: ObjectStore
    let key: String
    let answers: [String: CallbackAnswer]
    /// The element of an array of objects being migrated; nil for a single object.
    var element: Int? = nil

    /// One step of the chain: into `to`, from `from`, by `steps` (empty for an automatic add-only step).
    struct Hop {
        let from: SchemaVersion
        let to: SchemaVersion
        let steps: [MigrationStep]
    }

    /// The stored object at the newest versions of its type and of every nested type.
    func upgrade(_ stored: StoredObject) throws -> StoredObject {
        if let newest = try objects.newestSchema(of: stored.type), newest.version < stored.version {
            throw fail(stored.type, stored.version, "it was stored at \(stored.version), newer than any registered version")
        }
        var origins = StoredObject.origins(in: .object(stored.value))
        let stepped = try migrateLevels(StoredObject.Origin(type: stored.type, version: stored.version, parents: stored.parents),
                                        value: stored.plainValue, at: "", origins: &origins)
        var validator = ObjectValidator(objects: objects)
        validator.origins = origins
        validator.upgradeNested = { relative, origin, value in
            var nestedOrigins = origins
            return try migrateLevels(origin, value: value, at: relative, origins: &nestedOrigins)
        }
        do {
            return try validator.tag(stepped, as: stored.type, path: "value")
        } catch StoreError.invalidObject(let path, let reason) {
            throw fail(stored.type, stored.version, "the migrated value does not validate: \(path): \(reason)")
        }
    }

    /// True when nothing about the object is behind the registered schemas.
    func isCurrent(_ stored: StoredObject) throws(StoreError) -> Bool {
        guard let newest = try objects.newestSchema(of: stored.type), newest.version == stored.version,
              try hasNewestAncestors(newest, stored.parents) else { return false }
        for (_, origin) in StoredObject.origins(in: .object(stored.value)) {
            // A nested object of a type no longer registered, or stored at a newer version, stays as it is.
            guard let n = try objects.newestSchema(of: origin.type), origin.version <= n.version else { continue }
            if origin.version < n.version { return false }
            if try !hasNewestAncestors(n, origin.parents) { return false }
        }
        return true
    }

    /// Whether `parents` are the ancestors of `newest` at their newest versions.
    private func hasNewestAncestors(_ newest: TypeSchema, _ parents: [(type: String, version: SchemaVersion)]) throws(StoreError) -> Bool {
        let ancestors = try objects.ancestors(of: newest)
        return ancestors.count == parents.count
            && zip(ancestors, parents).allSatisfy { $0.type == $1.type && $0.version == $1.version }
    }

    private func fail(_ type: String, _ from: SchemaVersion, _ reason: String) -> MigrationStop {
        // For the message only: the error reported is the migration's.
        let to = (try? objects.newestSchema(of: type))??.version.text ?? "?"
        return .failed(.migrationFailed(key: key, type: type, from: from.text, to: to, reason: reason))
    }

    /// Runs each level's chain on a plain value: the ancestors' from the
    /// versions recorded, the root first, then the type's own.
    func migrateLevels(_ origin: StoredObject.Origin, value: JSON, at relative: String,
                       origins: inout [String: StoredObject.Origin]) throws -> JSON {
        var stepped = value
        for parent in origin.parents.reversed() {
            stepped = try migrateSteps(type: parent.type, from: parent.version, value: stepped, at: relative, origins: &origins)
        }
        return try migrateSteps(type: origin.type, from: origin.version, value: stepped, at: relative, origins: &origins)
    }

    /// Runs every hop's steps on a plain value.
    /// `origins` follows the values it describes when steps rename or move them.
    func migrateSteps(type: String, from version: SchemaVersion, value: JSON, at relative: String,
                      origins: inout [String: StoredObject.Origin]) throws -> JSON {
        let versions = try objects.versions(of: type)
        guard let newest = versions.last, version < newest.version else { return value }
        guard case .object(var bag) = value else { throw fail(type, version, "the stored value is not an object") }
        for hop in try plan(type: type, from: version, versions: versions) {
            for step in hop.steps {
                do {
                    try apply(step, to: &bag, type: type, hop: hop, relative: relative)
                    switch step {
                    case .rename(let from, let to), .move(let from, let to):
                        Self.follow(&origins, from: StoredObject.join(relative, from), to: StoredObject.join(relative, to))
                    default:
                        break
                    }
                } catch let reason as StepFailure {
                    throw fail(type, version, "\(step.json) (\(hop.from) → \(hop.to)): \(reason.message)")
                }
            }
            // What the version arrived at gives an absent field, it takes: its default.
            if let target = versions.first(where: { $0.version == hop.to }) {
                for f in target.fields where f.defaultValue != nil && (bag[f.name]?.isNull ?? true) {
                    bag[f.name] = f.defaultValue
                }
            }
        }
        return .object(bag)
    }

    /// Re-keys recorded origins under `from` (and below it) to `to`.
    static func follow(_ origins: inout [String: StoredObject.Origin], from: String, to: String) {
        for (path, origin) in origins where path == from || path.hasPrefix(from + ".") {
            origins[path] = nil
            origins[to + path.dropFirst(from.count)] = origin
        }
    }

    /// The shortest chain of hops from `from` to the newest version.
    func plan(type: String, from: SchemaVersion, versions: [TypeSchema]) throws(StoreError) -> [Hop] {
        guard let target = versions.last?.version else { return [] }
        var edges: [SchemaVersion: [Hop]] = [:]
        for schema in versions {
            for m in schema.migrations {
                for f in m.from { edges[f, default: []].append(Hop(from: f, to: schema.version, steps: m.steps)) }
            }
        }
        for (older, newer) in zip(versions, versions.dropFirst()) {
            let declared = edges[older.version]?.contains { $0.to == newer.version } ?? false
            if !declared && Self.onlyAdds(from: older, to: newer) {
                edges[older.version, default: []].append(Hop(from: older.version, to: newer.version, steps: []))
            }
        }
        // Breadth first: the fewest hops win; among equals, declared order.
        var previous: [SchemaVersion: Hop] = [:]
        var queue = [from], seen: Set<SchemaVersion> = [from]
        while !queue.isEmpty {
            let v = queue.removeFirst()
            if v == target {
                var chain: [Hop] = []
                var at = target
                while at != from, let hop = previous[at] { chain.append(hop); at = hop.from }
                return chain.reversed()
            }
            for hop in edges[v] ?? [] where seen.insert(hop.to).inserted {
                previous[hop.to] = hop
                queue.append(hop.to)
            }
        }
        // Report the gap itself: from the newest version the chain reaches to the next one registered.
        let reached = seen.max() ?? from
        let next = versions.first { $0.version > reached } ?? versions.last!
        let old = versions.first { $0.version == reached }
        throw StoreError.migrationMissing(type: type, from: reached.text, to: next.version.text,
                                          fields: old.map { Self.differences(from: $0, to: next) } ?? ["(no schema is registered for \(reached))"])
    }

    /// The newer version keeps every field as it was and only adds fields that may be absent.
    static func onlyAdds(from old: TypeSchema, to new: TypeSchema) -> Bool {
        for f in old.fields {
            guard let g = new.fields.first(where: { $0.name == f.name }), g.type == f.type else { return false }
        }
        let oldNames = Set(old.fields.map(\.name))
        return new.fields.allSatisfy { oldNames.contains($0.name) || $0.mayBeAbsent }
    }

    /// Names of fields removed, retyped or added without a default between two versions.
    static func differences(from old: TypeSchema, to new: TypeSchema) -> [String] {
        var names: [String] = []
        for f in old.fields {
            if let g = new.fields.first(where: { $0.name == f.name }) {
                if g.type != f.type { names.append("\(f.name) (\(f.type.name) → \(g.type.name))") }
            } else {
                names.append("\(f.name) (removed)")
            }
        }
        let oldNames = Set(old.fields.map(\.name))
        for g in new.fields where !oldNames.contains(g.name) && !g.mayBeAbsent { names.append("\(g.name) (added, required)") }
        return names
    }

    struct StepFailure: Error { let message: String }

    private func apply(_ step: MigrationStep, to bag: inout JSONObject, type: String, hop: Hop, relative: String) throws {
        switch step {
        case .rename(let from, let to), .move(let from, let to):
            if let v = Path.remove(from, in: &bag) { try Path.set(to, v, in: &bag) }
        case .remove(let field):
            _ = Path.remove(field, in: &bag)
        case .set(let field, let value):
            try Path.set(field, value, in: &bag)
        case .default(let field, let value):
            if Path.get(field, in: bag)?.isNull ?? true { try Path.set(field, value, in: &bag) }
        case .convert(let field, let to, let from):
            guard let v = Path.get(field, in: bag), !v.isNull else { return }
            try Path.set(field, try Conversion.convert(v, to: to, from: from), in: &bag)
        case .callback:
            let id = "\(element.map { "[\($0)]" } ?? "")\(relative)|\(type)|\(hop.from.text)|\(hop.to.text)"
            switch answers[id] {
            case nil:
                throw MigrationStop.needsCallback(CallbackRequest(id: id, type: type, fromVersion: hop.from.text,
                                                                  toVersion: hop.to.text, value: .object(bag), index: element))
            case .drop?:
                throw MigrationStop.drop
            case .failure(let message)?:
                throw StepFailure(message: "the client's migration failed: \(message)")
            case .value(let v)?:
                guard case .object(let o) = v else { throw StepFailure(message: "the client answered a \(v.typeName), not an object") }
                bag = o
            }
        }
    }
}

/// Dotted paths into nested maps: `bar.date`.
enum Path {
    static func get(_ path: String, in object: JSONObject) -> JSON? {
        let parts = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var current: JSON = .object(object)
        for p in parts {
            guard case .object(let o) = current, let next = o[p] else { return nil }
            current = next
        }
        return current
    }

    static func remove(_ path: String, in object: inout JSONObject) -> JSON? {
        var parts = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let last = parts.removeLast()
        return modify(&object, parts) { o in
            let v = o[last]
            o[last] = nil
            return v
        } ?? nil
    }

    static func set(_ path: String, _ value: JSON, in object: inout JSONObject) throws {
        var parts = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let last = parts.removeLast()
        let done: Bool? = modify(&object, parts, create: true) { o in
            o[last] = value
            return true
        }
        if done == nil { throw ObjectUpgrader.StepFailure(message: "\(path) runs through something that is not an object") }
    }

    private static func modify<T>(_ object: inout JSONObject, _ parts: [String], create: Bool = false,
                                  _ body: (inout JSONObject) -> T) -> T? {
        guard let first = parts.first else { return body(&object) }
        var child: JSONObject
        switch object[first] {
        case .object(let o)?: child = o
        case nil, .null?:
            guard create else { return nil }
            child = JSONObject()
        default: return nil
        }
        let result = modify(&child, Array(parts.dropFirst()), create: create, body)
        if result != nil { object[first] = .object(child) }
        return result
    }
}
