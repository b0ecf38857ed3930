import LarderJSON

/// A read-only view of a request's named parameters that turns every decoding
/// problem into a -32602 error naming the member's path and the expected type,
/// e.g. `type mismatch at params.disk.maxCount: expected integer, got string`.
public struct ParamsReader: Sendable {
    public let object: JSONObject
    /// Where this object sits in the request, for messages: `params`, `params.disk`.
    public let path: String

    public init(_ json: JSON?, path: String = "params") {
        self.object = json?.objectValue ?? JSONObject()
        self.path = path
    }

    public init(object: JSONObject, path: String) {
        self.object = object
        self.path = path
    }

    public subscript(name: String) -> JSON? {
        guard let v = object[name], !v.isNull else { return nil }
        return v
    }

    public func contains(_ name: String) -> Bool { self[name] != nil }

    /// A required member. Absent and null both count as missing.
    public func require<T: ParamDecodable>(_ name: String, as type: T.Type = T.self) throws(ResponseError) -> T {
        guard let v = self[name] else {
            throw .invalidParams("missing required parameter \(path).\(name) (\(T.expectation))")
        }
        return try T.decode(v, at: "\(path).\(name)")
    }

    /// An optional member; absent and null give nil.
    public func optional<T: ParamDecodable>(_ name: String, as type: T.Type = T.self) throws(ResponseError) -> T? {
        guard let v = self[name] else { return nil }
        return try T.decode(v, at: "\(path).\(name)")
    }

    public static func mismatch(at path: String, expected: String, got value: JSON) -> ResponseError {
        .invalidParams("type mismatch at \(path): expected \(expected), got \(value.typeName)")
    }
}

/// A type a parameter can be decoded into.
public protocol ParamDecodable {
    /// How the expected type reads in an error message ("integer", "object").
    static var expectation: String { get }
    static func decode(_ json: JSON, at path: String) throws(ResponseError) -> Self
}

extension String: ParamDecodable {
    public static var expectation: String { "string" }
    public static func decode(_ json: JSON, at path: String) throws(ResponseError) -> String {
        guard case .string(let s) = json else { throw ParamsReader.mismatch(at: path, expected: expectation, got: json) }
        return s
    }
}

extension Bool: ParamDecodable {
    public static var expectation: String { "boolean" }
    public static func decode(_ json: JSON, at path: String) throws(ResponseError) -> Bool {
        guard case .bool(let b) = json else { throw ParamsReader.mismatch(at: path, expected: expectation, got: json) }
        return b
    }
}

extension Int: ParamDecodable {
    public static var expectation: String { "integer" }
    public static func decode(_ json: JSON, at path: String) throws(ResponseError) -> Int {
        guard case .number(let n) = json, let i = n.int else {
            if case .number(let n) = json, let range = n.integerRange {
                throw .invalidParams("out of range at \(path): expected integer \(range), got \(n.literal.echoed)")
            }
            throw ParamsReader.mismatch(at: path, expected: expectation, got: json)
        }
        return i
    }
}

extension Double: ParamDecodable {
    public static var expectation: String { "number" }
    public static func decode(_ json: JSON, at path: String) throws(ResponseError) -> Double {
        guard case .number(let n) = json, n.double.isFinite else {
            throw ParamsReader.mismatch(at: path, expected: expectation, got: json)
        }
        return n.double
    }
}

extension JSON: ParamDecodable {
    public static var expectation: String { "any JSON value" }
    public static func decode(_ json: JSON, at path: String) throws(ResponseError) -> JSON { json }
}

extension ParamsReader: ParamDecodable {
    public static var expectation: String { "object" }
    public static func decode(_ json: JSON, at path: String) throws(ResponseError) -> ParamsReader {
        guard case .object(let o) = json else { throw ParamsReader.mismatch(at: path, expected: expectation, got: json) }
        return ParamsReader(object: o, path: path)
    }
}

extension Array: ParamDecodable where Element: ParamDecodable {
    public static var expectation: String { "array of \(Element.expectation)" }
    public static func decode(_ json: JSON, at path: String) throws(ResponseError) -> [Element] {
        guard case .array(let a) = json else { throw ParamsReader.mismatch(at: path, expected: expectation, got: json) }
        var out: [Element] = []
        out.reserveCapacity(a.count)
        for (k, v) in a.enumerated() { out.append(try Element.decode(v, at: "\(path)[\(k)]")) }
        return out
    }
}

/// An object of known members in a request's params — a method's params
/// themselves, or an object nested in them (`memory`, `entries[3]`).
///
/// Decoding one refuses every member it does not list, at whatever depth it
/// sits, naming the path and the nearest known name: a misspelt member must
/// fail, never be ignored. This is the one place that check is made.
public protocol ParamsObject: ParamDecodable {
    /// Every member the object may have, in the order they are documented.
    static var members: [String] { get }
    /// The members it must have (checked by `init` as it reads them).
    static var requiredMembers: [String] { get }
    /// Reads the members; unknown ones were already refused.
    init(_ p: ParamsReader) throws(ResponseError)
}

extension ParamsObject {
    public static var requiredMembers: [String] { [] }
    public static var expectation: String { "object" }

    public static func decode(_ json: JSON, at path: String) throws(ResponseError) -> Self {
        guard case .object(let o) = json else { throw ParamsReader.mismatch(at: path, expected: expectation, got: json) }
        return try decode(ParamsReader(object: o, path: path))
    }

    /// Checks the members of `p`, then reads them.
    public static func decode(_ p: ParamsReader) throws(ResponseError) -> Self {
        if let unknown = p.object.unknownMember(knowing: members, at: p.path) { throw .unknownMember(unknown) }
        return try Self(p)
    }
}

/// Params with no members at all (`cache.list`, `shutdown`).
public struct NoParams: ParamsObject {
    public static let members: [String] = []
    public init(_ p: ParamsReader) {}
}
