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
            ms = Self.parseBasic(text)
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
        let fraction = Int(((ms % 1000) + 1000) % 1000)
        let seconds = (ms - Int64(fraction)) / 1000
        var days = seconds / 86_400
        var rem = seconds % 86_400
        if rem < 0 { rem += 86_400; days -= 1 }
        let (y, m, d) = Timestamp.civil(fromDays: days)
        let hh = Int(rem / 3600), mm = Int(rem % 3600 / 60), ss = Int(rem % 60)
        let tail = fraction == 0 ? "Z" : "." + Self.pad(fraction, 3) + "Z"
        if self == .iso8601 {
            return .string("\(Self.pad(Int(y), 4))-\(Self.pad(m, 2))-\(Self.pad(d, 2))T\(Self.pad(hh, 2)):\(Self.pad(mm, 2)):\(Self.pad(ss, 2))" + tail)
        }
        return .string("\(Self.pad(Int(y), 4))\(Self.pad(m, 2))\(Self.pad(d, 2))T\(Self.pad(hh, 2))\(Self.pad(mm, 2))\(Self.pad(ss, 2))" + tail)
    }

    private static func pad(_ v: Int, _ width: Int) -> String {
        let s = String(v)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }

    /// Parses `YYYYMMDDTHHMMSS[.fraction](Z|±HH[[:]MM])`.
    static func parseBasic(_ text: String) -> Int64? {
        let b = Array(text.utf8)
        func digits(_ at: Int, _ n: Int) -> Int? {
            guard at + n <= b.count else { return nil }
            var v = 0
            for k in at..<(at + n) {
                guard b[k] >= 48 && b[k] <= 57 else { return nil }
                v = v * 10 + Int(b[k] - 48)
            }
            return v
        }
        guard b.count >= 16, let y = digits(0, 4), let mo = digits(4, 2), let d = digits(6, 2),
              b[8] == UInt8(ascii: "T") || b[8] == UInt8(ascii: "t"),
              let h = digits(9, 2), let mi = digits(11, 2), let s = digits(13, 2),
              (1...12).contains(mo), d >= 1, d <= daysIn(month: mo, year: y), h < 24, mi < 60, s < 61
        else { return nil }
        var k = 15
        var fractionMs = 0
        if k < b.count, b[k] == UInt8(ascii: ".") || b[k] == UInt8(ascii: ",") {
            k += 1
            var scale = 100, any = false
            while k < b.count, b[k] >= 48 && b[k] <= 57 {
                fractionMs += Int(b[k] - 48) * scale
                scale /= 10
                k += 1
                any = true
            }
            guard any else { return nil }
        }
        guard k < b.count else { return nil }
        var offsetSeconds = 0
        if b[k] == UInt8(ascii: "Z") || b[k] == UInt8(ascii: "z") {
            k += 1
        } else if b[k] == UInt8(ascii: "+") || b[k] == UInt8(ascii: "-") {
            let sign = b[k] == UInt8(ascii: "+") ? 1 : -1
            guard let oh = digits(k + 1, 2), oh < 24 else { return nil }
            k += 3
            var om = 0
            if k < b.count {
                if b[k] == UInt8(ascii: ":") { k += 1 }
                guard let m = digits(k, 2), m < 60 else { return nil }
                om = m
                k += 2
            }
            offsetSeconds = sign * (oh * 3600 + om * 60)
        } else {
            return nil
        }
        guard k == b.count else { return nil }
        let days = Timestamp.daysFromCivil(y, mo, d)
        let seconds = days * 86_400 + Int64(h * 3600 + mi * 60 + min(s, 59)) - Int64(offsetSeconds)
        return seconds * 1000 + Int64(fractionMs)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
