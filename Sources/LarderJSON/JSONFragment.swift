/// Compact JSON text known to be valid, spliced verbatim into output.
public struct JSONFragment: Sendable {
    public let bytes: [UInt8]

    /// Trusts the caller: the bytes must be one valid JSON value (for example,
    /// text that `JSONWriter` produced earlier and the store kept).
    public init(validJSON bytes: [UInt8]) { self.bytes = bytes }

    /// The value the text encodes.
    public var parsed: JSON? { try? JSONParser.parse(bytes) }
}
