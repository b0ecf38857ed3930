/// RFC 3339 timestamps in UTC, without Foundation.
public enum Timestamp {
    /// `2026-01-01T00:00:00.000Z` for milliseconds since 1970.
    public static func format(milliseconds: Int64) -> String {
        // Written digit by digit: this runs for every entry a get returns.
        let ms = Int(((milliseconds % 1000) + 1000) % 1000)
        let seconds = (milliseconds - Int64(ms)) / 1000
        var days = seconds / 86_400
        var rem = seconds % 86_400
        if rem < 0 { rem += 86_400; days -= 1 }
        let (y, m, d) = civil(fromDays: days)
        guard (0...9999).contains(y) else {
            return "\(y)-\(m)-\(d)T\(rem / 3600):\(rem % 3600 / 60):\(rem % 60).\(ms)Z"
        }
        let fields: [(Int, Int, UInt8)] = [(Int(y), 4, 45), (m, 2, 45), (d, 2, 84), (Int(rem / 3600), 2, 58),
                                            (Int(rem % 3600 / 60), 2, 58), (Int(rem % 60), 2, 46), (ms, 3, 90)]
        return String(unsafeUninitializedCapacity: 24) { buffer in
            var at = 0
            for (value, width, separator) in fields {
                var v = value
                for k in stride(from: width - 1, through: 0, by: -1) {
                    buffer[at + k] = UInt8(48 + v % 10)
                    v /= 10
                }
                at += width
                buffer[at] = separator
                at += 1
            }
            return at
        }
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`; nil if it is not one.
    public static func parse(_ text: String) -> Int64? {
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
        guard b.count >= 20, let y = digits(0, 4), b[4] == 45, let mo = digits(5, 2), b[7] == 45, let d = digits(8, 2),
              b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: "t") || b[10] == 32,
              let h = digits(11, 2), b[13] == 58, let mi = digits(14, 2), b[16] == 58, let s = digits(17, 2),
              (1...12).contains(mo), d >= 1, d <= daysIn(month: mo, year: y), h < 24, mi < 60, s < 61
        else { return nil }
        var k = 19
        var fractionMs = 0
        if k < b.count, b[k] == UInt8(ascii: ".") {
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
            guard let oh = digits(k + 1, 2), k + 3 < b.count, b[k + 3] == 58, let om = digits(k + 4, 2), oh < 24, om < 60 else { return nil }
            offsetSeconds = (oh * 3600 + om * 60) * (b[k] == UInt8(ascii: "+") ? 1 : -1)
            k += 6
        } else {
            return nil
        }
        guard k == b.count else { return nil }
        let days = daysFromCivil(y, mo, d)
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

    // Howard Hinnant's days-from-civil algorithms (proleptic Gregorian calendar).
    static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = Int64((month + 9) % 12)
        let doy = (153 * mp + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civil(fromDays days: Int64) -> (Int64, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = Int(doy - (153 * mp + 2) / 5 + 1)
        let m = Int(mp < 10 ? mp + 3 : mp - 9)
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}
