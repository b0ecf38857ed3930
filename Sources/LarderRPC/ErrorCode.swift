/// A JSON-RPC error code. Open, so that applications add their own codes
/// beside the protocol's as statics in an extension.
public struct ErrorCode: RawRepresentable, Hashable, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    // JSON-RPC 2.0.
    public static let parseError = ErrorCode(rawValue: -32700)
    public static let invalidRequest = ErrorCode(rawValue: -32600)
    public static let methodNotFound = ErrorCode(rawValue: -32601)
    public static let invalidParams = ErrorCode(rawValue: -32602)
    public static let internalError = ErrorCode(rawValue: -32603)

    // The Language Server Protocol's, with the same meanings.
    public static let serverNotInitialized = ErrorCode(rawValue: -32002)
    public static let requestCancelled = ErrorCode(rawValue: -32800)
    public static let requestFailed = ErrorCode(rawValue: -32803)
}
