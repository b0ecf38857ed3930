import LarderJSON

/// The JSON types a member may take, as openrpc.json's schemas name them:
/// `integer` and `number` are apart, as there.
public struct JSONTypes: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let null = JSONTypes(rawValue: 1 << 0)
    public static let boolean = JSONTypes(rawValue: 1 << 1)
    public static let integer = JSONTypes(rawValue: 1 << 2)
    public static let number = JSONTypes(rawValue: 1 << 3)
    public static let string = JSONTypes(rawValue: 1 << 4)
    public static let array = JSONTypes(rawValue: 1 << 5)
    public static let object = JSONTypes(rawValue: 1 << 6)
    /// Any JSON value (a schema that names no type).
    public static let any: JSONTypes = [.null, .boolean, .integer, .number, .string, .array, .object]

    public static let names: [(JSONTypes, String)] = [
        (.null, "null"), (.boolean, "boolean"), (.integer, "integer"), (.number, "number"),
        (.string, "string"), (.array, "array"), (.object, "object"),
    ]

    public var description: String {
        self == .any ? "any" : Self.names.filter { contains($0.0) }.map(\.1).joined(separator: "|")
    }
}

/// One member of a message's params or of a server request's result: its
/// name, whether it is always there, and its JSON types. The contract tests
/// compare these with openrpc.json's `x-server-requests` and `x-notifications`.
public struct MessageMember: Sendable, Equatable {
    public let name: String
    public let isRequired: Bool
    public let types: JSONTypes

    public static func required(_ name: String, _ types: JSONTypes) -> MessageMember {
        MessageMember(name: name, isRequired: true, types: types)
    }

    public static func optional(_ name: String, _ types: JSONTypes) -> MessageMember {
        MessageMember(name: name, isRequired: false, types: types)
    }
}

/// An object of known members in a message the server sends or reads back:
/// its `members` in the order they are written and documented.
public protocol MessageObject {
    static var members: [MessageMember] { get }
}

/// The params of a message the server sends, written straight into the
/// output by hand (no reflection, no Foundation), each member in `members`.
public protocol OutgoingParams: MessageObject {
    func write(into w: inout JSONWriter)
}
