import LarderJSON

/// How an entity model writes dates in JSON (JSONCache's three formats).
/// Whatever the format, a date is stored as milliseconds since 1970 in UTC,
/// so formats can be compared and ordered in queries.
public enum DateFormat: String, CaseIterable, Sendable {
    /// `2000-08-22T12:28:00Z` (RFC 3339). Input may carry fractional seconds and an offset.
    case iso8601
    /// `20000822T122800Z`. Input may carry fractional seconds and an offset (`+0200`, `+02:00`, `+02`).
    case iso8601Basic
    /// Seconds since 1970-01-01T00:00:00Z as a number, fractional allowed: `966947280`, `966947280.5`.
    case epochSeconds

    /// Dates from 0000-01-01 to 9999-12-31, the years four digits can write.
    static let earliestSeconds: Int64 = -62_167_219_200
    static let latestSeconds: Int64 = 253_402_300_799

    /// An example for error messages.
    var example: String {
        switch self {
        case .iso8601: return "2000-08-22T12:28:00Z"
        case .iso8601Basic: return "20000822T122800Z"
        case .epochSeconds: return "966947280"
        }
    }

    /// Milliseconds since 1970 for `value` written in this format; nil if it is not such a date.
    func milliseconds(from value: JSON) -> Int64? {
        let ms: Int64?
        switch self {
        case .iso8601:
            guard case .string(let text) = value else { return nil }
            ms = Timestamp.parse(text)
        case .iso8601Basic:
            guard case .string(let text) = value else { return nil }
            ms = Timestamp.parse(text, basic: true)
        case .epochSeconds:
            guard case .number(let n) = value else { return nil }
            if n.isInteger {
                guard let seconds = n.int64, seconds >= Self.earliestSeconds, seconds <= Self.latestSeconds else { return nil }
                ms = seconds * 1000
            } else {
                let seconds = n.double
                guard seconds.isFinite, seconds >= Double(Self.earliestSeconds), seconds < Double(Self.latestSeconds + 1) else { return nil }
                ms = Int64((seconds * 1000).rounded())
            }
        }
        guard let ms, ms >= Self.earliestSeconds * 1000, ms <= Self.latestSeconds * 1000 + 999 else { return nil }
        return ms
    }

    /// The date in this format, in UTC; fractional seconds only when there are some.
    func json(milliseconds ms: Int64) -> JSON {
        if self == .epochSeconds {
            if ms % 1000 == 0 { return .number(JSONNumber(ms / 1000)) }
            return .double(Double(ms) / 1000)
        }
        return .string(Timestamp.format(milliseconds: ms, basic: self == .iso8601Basic, alwaysFraction: false))
    }
}
