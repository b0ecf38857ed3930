#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A JSON number, kept as its literal text.
///
/// Keeping the literal makes every number round-trip exactly (a 64-bit id, `1.0`
/// versus `1`, `1e400`), and costs nothing extra: literals up to 15 bytes are
/// stored inline by `String`. Values are computed when asked for.
public struct JSONNumber: Sendable, Hashable {
    /// The number as written, valid JSON number syntax.
    public let literal: String

    /// Wraps text already known to be a valid JSON number (the parser's
    /// output, or text `CompactJSON` recognised); it is not checked again.
    public init(validLiteral: String) { self.literal = validLiteral }

    public init(_ value: Int) { literal = String(value) }
    public init(_ value: Int64) { literal = String(value) }
    public init(_ value: UInt64) { literal = String(value) }

    /// A finite double, written in the shortest form that reads back as the same
    /// value. JSON has no infinities or NaN: those become 0 (callers check first).
    public init(_ value: Double) {
        guard value.isFinite else { literal = "0"; return }
        if value == value.rounded(), abs(value) < 1e15 {
            literal = String(Int64(value))
        } else {
            literal = "\(value)"
        }
    }

    /// True when the literal has no fraction or exponent.
    public var isInteger: Bool {
        !literal.utf8.contains { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
    }

    /// The exact value if it is an integer that fits in 64 signed bits. A
    /// literal with a fraction or exponent counts when its value is integral and
    /// exactly representable (`10.0`, `1e3`).
    public var int64: Int64? {
        if isInteger { return Int64(literal) }
        let d = double
        guard d == d.rounded(), abs(d) <= 9_007_199_254_740_992 else { return nil }
        return Int64(d)
    }

    public var int: Int? { int64.map { Int($0) } }

    /// For an integral number that is no `int64`, the range it missed, as
    /// messages give it ("expected integer from … to …, got 1e30"); nil for
    /// one that is, and for one with a fraction. Written with a fraction or
    /// an exponent, an integer counts up to 2⁵³, where doubles stop being exact.
    public var integerRange: String? {
        guard int64 == nil else { return nil }
        if isInteger { return "from -9223372036854775808 to 9223372036854775807" }
        let d = double
        guard d == d.rounded() else { return nil }
        return abs(d) > 9.3e18 ? "from -9223372036854775808 to 9223372036854775807"
            : "from -9007199254740992 to 9007199254740992 when written with a fraction or an exponent"
    }

    /// The nearest double (overflow gives ±infinity, as strtod does).
    public var double: Double {
        literal.withCString { strtod($0, nil) }
    }

    public static func == (lhs: JSONNumber, rhs: JSONNumber) -> Bool {
        if lhs.literal == rhs.literal { return true }
        if let a = lhs.int64, let b = rhs.int64 { return a == b }
        if lhs.isInteger, rhs.isInteger { return false }
        return lhs.double == rhs.double
    }

    public func hash(into hasher: inout Hasher) {
        if let i = int64 { hasher.combine(i) } else { hasher.combine(double) }
    }
}
