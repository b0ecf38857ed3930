import LarderJSON
import LarderStorage

/// One declarative operation on an object's fields while it moves between
/// versions (HMCache's migration bag, as data). Paths are dotted: `bar.date`
/// reaches into the nested object `bar`.
public enum MigrationStep: Equatable, Sendable {
    case rename(from: String, to: String)
    case remove(field: String)
    /// Sets a field, whatever it held.
    case set(field: String, value: JSON)
    /// Sets a field only where it is absent or null.
    case `default`(field: String, value: JSON)
    case convert(field: String, to: Conversion, from: Conversion?)
    /// Moves a value from one path to another, across nested objects.
    case move(from: String, to: String)
    /// Asks the client (`migrate.object`) for the new value.
    case callback

    public enum Conversion: String, Sendable {
        case string, number, integer, bool, date, epochSeconds, epochMillis
    }

    static let maxPathDepth = 64

    static let ops = ["rename", "remove", "set", "default", "convert", "move", "callback"]

    /// The members each op takes.
    static let members: [String: [String]] = [
        "rename": ["op", "from", "to"], "remove": ["op", "field"], "set": ["op", "field", "value"],
        "default": ["op", "field", "value"], "convert": ["op", "field", "to", "from"], "move": ["op", "from", "to"],
        "callback": ["op"],
    ]

    init(json: JSON, at path: String) throws(StoreError) {
        guard case .object(let o) = json, case .string(let op)? = o["op"] else {
            throw .invalidArgument(field: path, reason: "a step is an object with an \"op\"")
        }
        func text(_ name: String) throws(StoreError) -> String {
            guard case .string(let s)? = o[name], !s.isEmpty else {
                throw .invalidArgument(field: "\(path).\(name)", reason: "\"\(op)\" needs a non-empty string \(name)")
            }
            // Paths are walked recursively; objects nest no deeper than the parser allows anyway.
            guard s.utf8.count(where: { $0 == UInt8(ascii: ".") }) < Self.maxPathDepth else {
                throw .invalidArgument(field: "\(path).\(name)", reason: "a path may have at most \(Self.maxPathDepth) parts")
            }
            return s
        }
        func value(_ name: String) throws(StoreError) -> JSON {
            guard let v = o[name] else { throw .invalidArgument(field: "\(path).\(name)", reason: "\"\(op)\" needs a \(name)") }
            return v
        }
        func conversion(_ name: String) throws(StoreError) -> Conversion? {
            guard let v = o[name] else { return nil }
            guard case .string(let s) = v, let c = Conversion(rawValue: s) else {
                throw .invalidArgument(field: "\(path).\(name)", reason: "must be string, number, integer, bool, date, epochSeconds or epochMillis")
            }
            return c
        }
        if let known = Self.members[op] { try o.checkMembers(known, at: path) }
        switch op {
        case "rename": self = .rename(from: try text("from"), to: try text("to"))
        case "remove": self = .remove(field: try text("field"))
        case "set": self = .set(field: try text("field"), value: try value("value"))
        case "default": self = .default(field: try text("field"), value: try value("value"))
        case "convert":
            guard let to = try conversion("to") else { throw .invalidArgument(field: "\(path).to", reason: "\"convert\" needs a target type") }
            self = .convert(field: try text("field"), to: to, from: try conversion("from"))
        case "move": self = .move(from: try text("from"), to: try text("to"))
        case "callback": self = .callback
        default:
            let meant = NearestName.suggestion(for: op, among: Self.ops).map { " (did you mean \($0)?)" } ?? ""
            throw .invalidArgument(field: "\(path).op", reason: "unknown op \"\(op)\"\(meant); ops are \(Self.ops.joined(separator: ", "))")
        }
    }

    var json: JSON {
        switch self {
        case .rename(let f, let t): return ["op": "rename", "from": .string(f), "to": .string(t)]
        case .remove(let f): return ["op": "remove", "field": .string(f)]
        case .set(let f, let v): return ["op": "set", "field": .string(f), "value": v]
        case .default(let f, let v): return ["op": "default", "field": .string(f), "value": v]
        case .convert(let f, let to, let from):
            var o: JSONObject = ["op": "convert", "field": .string(f), "to": .string(to.rawValue)]
            if let from { o["from"] = .string(from.rawValue) }
            return .object(o)
        case .move(let f, let t): return ["op": "move", "from": .string(f), "to": .string(t)]
        case .callback: return ["op": "callback"]
        }
    }
}

/// A migration into the version that declares it, from one or more older versions.
public struct Migration: Equatable, Sendable {
    public var from: [SchemaVersion]
    public var steps: [MigrationStep]

    init(json: JSON, at path: String) throws(StoreError) {
        guard case .object(let o) = json else { throw .invalidArgument(field: path, reason: "a migration is {from, steps}") }
        try o.checkMembers(["from", "steps"], at: path)
        switch o["from"] {
        case .string(let v)?:
            guard let version = SchemaVersion(v) else { throw .invalidArgument(field: path + ".from", reason: "not a version: \(v)") }
            from = [version]
        case .array(let list)?:
            from = []
            for (k, item) in list.enumerated() {
                guard case .string(let v) = item, let version = SchemaVersion(v) else {
                    throw .invalidArgument(field: "\(path).from[\(k)]", reason: "not a version")
                }
                from.append(version)
            }
            guard !from.isEmpty else { throw .invalidArgument(field: path + ".from", reason: "names no version") }
        default:
            throw .invalidArgument(field: path + ".from", reason: "a version or a list of versions is required")
        }
        guard case .array(let list)? = o["steps"] else { throw .invalidArgument(field: path + ".steps", reason: "a list of steps is required") }
        steps = []
        for (k, item) in list.enumerated() { steps.append(try MigrationStep(json: item, at: "\(path).steps[\(k)]")) }
    }

    var json: JSON {
        ["from": .array(from.map { .string($0.text) }), "steps": .array(steps.map(\.json))]
    }
}
