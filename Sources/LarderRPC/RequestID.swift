import LarderJSON

/// A request id as JSON-RPC 2.0 allows it: a number, a string, or null.
///
/// Numbers keep their literal text, so the id in a response is byte for byte
/// the id in the request.
public enum RequestID: Hashable, Sendable, CustomStringConvertible {
    case number(JSONNumber)
    case string(String)
    case null

    /// The id member of a message, or nil when it is not a valid id type.
    public init?(_ json: JSON) {
        switch json {
        case .number(let n): self = .number(n)
        case .string(let s): self = .string(s)
        case .null: self = .null
        default: return nil
        }
    }

    public var json: JSON {
        switch self {
        case .number(let n): return .number(n)
        case .string(let s): return .string(s)
        case .null: return .null
        }
    }

    public var description: String { json.description }
}
