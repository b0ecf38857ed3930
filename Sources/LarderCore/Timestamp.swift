import LarderJSON

/// RFC 3339 timestamps in UTC, without Foundation.
public enum Timestamp {
    /// `2026-01-01T00:00:00.000Z` for milliseconds since 1970. `basic` writes
    /// ISO 8601's basic form (`20260101T000000.000Z`); without `alwaysFraction`
    /// the milliseconds appear only when they are not zero.
    public static func format(milliseconds: Int64, basic: Bool = false, alwaysFraction: Bool = true) -> String {
        let parts = Parts(milliseconds)
        guard parts.fitsFourDigitYear else { return parts.fallbackText }
        return String(unsafeUninitializedCapacity: maxLength) { parts.write(into: $0, basic: basic, alwaysFraction: alwaysFraction) }
    }

    /// Appends `format(milliseconds:)`'s text to a writer without making a
    /// String: this runs for every entry a get returns.
    public static func append(milliseconds: Int64, to w: inout JSONWriter) {
        let parts = Parts(milliseconds)
        guard parts.fitsFourDigitYear else {
            var text = parts.fallbackText
            return text.withUTF8 { w.writeRaw($0) }
        }
        w.append(upTo: maxLength) { parts.write(into: UnsafeMutableBufferPointer(start: $0, count: maxLength), basic: false, alwaysFraction: true) }
    }

    private static let maxLength = 24

    /// A time split into calendar fields, in UTC.
    private struct Parts {
        let year: Int64, month: Int, day: Int, hour: Int, minute: Int, second: Int, millisecond: Int

        init(_ milliseconds: Int64) {
            millisecond = Int(((milliseconds % 1000) + 1000) % 1000)
            let seconds = (milliseconds - Int64(millisecond)) / 1000
            var days = seconds / 86_400
            var rem = seconds % 86_400
            if rem < 0 { rem += 86_400; days -= 1 }
            (year, month, day) = Timestamp.civil(fromDays: days)
            hour = Int(rem / 3600)
            minute = Int(rem % 3600 / 60)
            second = Int(rem % 60)
        }

        var fitsFourDigitYear: Bool { year >= 0 && year <= 9999 }

        var fallbackText: String { "\(year)-\(month)-\(day)T\(hour):\(minute):\(second).\(millisecond)Z" }

        /// Writes the digits and returns how many bytes they took (at most `maxLength`).
        func write(into buffer: UnsafeMutableBufferPointer<UInt8>, basic: Bool, alwaysFraction: Bool) -> Int {
            precondition(buffer.count >= Timestamp.maxLength)
            let out = buffer.baseAddress!
            // The form every answer carries, at fixed places.
            if !basic && alwaysFraction {
                pair(out, 0, Int(year) / 100)
                pair(out, 2, Int(year) % 100)
                out[4] = UInt8(ascii: "-")
                pair(out, 5, month)
                out[7] = UInt8(ascii: "-")
                pair(out, 8, day)
                out[10] = UInt8(ascii: "T")
                pair(out, 11, hour)
                out[13] = UInt8(ascii: ":")
                pair(out, 14, minute)
                out[16] = UInt8(ascii: ":")
                pair(out, 17, second)
                out[19] = UInt8(ascii: ".")
                out[20] = UInt8(truncatingIfNeeded: millisecond / 100) &+ UInt8(ascii: "0")
                pair(out, 21, millisecond % 100)
                out[23] = UInt8(ascii: "Z")
                return 24
            }
            let withFraction = alwaysFraction || millisecond != 0
            var at = 0
            func field(_ value: Int, then separator: UInt8?) {
                pair(out, at, value)
                at += 2
                if let separator {
                    out[at] = separator
                    at += 1
                }
            }
            field(Int(year) / 100, then: nil)
            field(Int(year) % 100, then: basic ? nil : UInt8(ascii: "-"))
            field(month, then: basic ? nil : UInt8(ascii: "-"))
            field(day, then: UInt8(ascii: "T"))
            field(hour, then: basic ? nil : UInt8(ascii: ":"))
            field(minute, then: basic ? nil : UInt8(ascii: ":"))
            field(second, then: withFraction ? UInt8(ascii: ".") : UInt8(ascii: "Z"))
            if withFraction {
                out[at] = UInt8(truncatingIfNeeded: millisecond / 100) &+ UInt8(ascii: "0")
                at += 1
                field(millisecond % 100, then: UInt8(ascii: "Z"))
            }
            return at
        }

        /// Two digits of `value` (0...99) at `out[at]`, copied from a table.
        @inline(__always)
        private func pair(_ out: UnsafeMutablePointer<UInt8>, _ at: Int, _ value: Int) {
            let digits = UnsafeRawPointer(Timestamp.digitPairs.utf8Start + 2 * value).loadUnaligned(as: UInt16.self)
            UnsafeMutableRawPointer(out + at).storeBytes(of: digits, as: UInt16.self)
        }
    }

    private static let digitPairs: StaticString = """
        00010203040506070809101112131415161718192021222324252627282930313233343536373839\
        40414243444546474849505152535455565758596061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899
        """

    /// Parses RFC 3339, `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`, or with
    /// `basic` ISO 8601's basic form, `YYYYMMDDTHHMMSS[.fraction](Z|±HH[[:]MM])`.
    /// Nil if the text is not such a time or names a date that does not exist.
    public static func parse(_ text: String, basic: Bool = false) -> Int64? {
        let b = Array(text.utf8)
        var k = 0
        func number(_ n: Int) -> Int? {
            guard k + n <= b.count else { return nil }
            var v = 0
            for j in k..<(k + n) {
                guard b[j] >= 48 && b[j] <= 57 else { return nil }
                v = v * 10 + Int(b[j] - 48)
            }
            k += n
            return v
        }
        func separator(_ c: UInt8) -> Bool {
            if basic { return true }
            guard k < b.count, b[k] == c else { return false }
            k += 1
            return true
        }
        func timeMarker() -> Bool {
            guard k < b.count, b[k] == UInt8(ascii: "T") || b[k] == UInt8(ascii: "t") || (!basic && b[k] == 32) else { return false }
            k += 1
            return true
        }
        guard let y = number(4), separator(45), let mo = number(2), separator(45), let d = number(2), timeMarker(),
              let h = number(2), separator(58), let mi = number(2), separator(58), let s = number(2),
              (1...12).contains(mo), d >= 1, d <= daysIn(month: mo, year: y), h < 24, mi < 60, s < 61
        else { return nil }
        var fractionMs = 0
        if k < b.count, b[k] == UInt8(ascii: ".") || (basic && b[k] == UInt8(ascii: ",")) {
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
            k += 1
            guard let oh = number(2), oh < 24 else { return nil }
            var om = 0
            // RFC 3339 requires ±HH:MM; the basic form also takes ±HH and ±HHMM.
            if !basic || k < b.count {
                if k < b.count, b[k] == 58 { k += 1 } else if !basic { return nil }
                guard let m = number(2), m < 60 else { return nil }
                om = m
            }
            offsetSeconds = sign * (oh * 3600 + om * 60)
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
