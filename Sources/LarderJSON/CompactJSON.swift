/// Recognises JSON text that is already exactly what `JSONWriter` would write
/// for the value it encodes: valid, no whitespace, strings escaped only the
/// way the writer escapes them.
///
/// Such text can be stored or echoed as it is, with no tree built and no
/// re-encoding, and the result is byte for byte what parsing and writing
/// would give. Anything else (whitespace, `\/`, `\u0041`, deep nesting) is
/// simply not recognised; the caller then parses it the ordinary way, which
/// also produces the proper error for invalid input.
public enum CompactJSON {
    /// Deeper values are left to the parser and its depth limit.
    public static let maxDepth = 64

    /// The end of the compact value starting at `start`, or nil if there is no
    /// such value there.
    public static func valueEnd(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard let base = bytes.baseAddress, start < bytes.count else { return nil }
        var scanner = Scanner(base: base, end: bytes.count, i: start)
        return scanner.value(depth: 0) ? scanner.i : nil
    }

    /// The end of the string starting at `start` (at its opening quote) if it
    /// has no escapes at all, so that its bytes between the quotes are its
    /// value; nil otherwise. Multi-byte UTF-8 is validated.
    ///
    /// Inlinable: requests are read in another module, a few strings each,
    /// and most are short ASCII that the first run covers.
    @inlinable
    public static func plainStringEnd(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard let base = bytes.baseAddress, start < bytes.count, base[start] == UInt8(ascii: "\"") else { return nil }
        let i = plainRun(base, from: start + 1, end: bytes.count)
        if i < bytes.count && base[i] == UInt8(ascii: "\"") { return i + 1 }
        return plainStringEnd(base, continuingAt: i, end: bytes.count)
    }

    /// The rest of `plainStringEnd` once the first run stopped short of the closing quote.
    @usableFromInline
    static func plainStringEnd(_ base: UnsafePointer<UInt8>, continuingAt start: Int, end: Int) -> Int? {
        var i = start
        while i < end {
            let b = base[i]
            if b == UInt8(ascii: "\"") { return i + 1 }
            guard b >= 0x80, case .valid(let n) = UTF8Sequence.check(base, at: i, end: end) else { return nil }
            i = plainRun(base, from: i + n, end: end)
        }
        return nil
    }

    /// The first byte at or after `from` that is not printable ASCII other
    /// than `"` and `\\`: what most of any string is made of.
    @inlinable @inline(__always)
    static func plainRun(_ base: UnsafePointer<UInt8>, from: Int, end: Int) -> Int {
        var k = from
        // Eight bytes at a time while none of them is special (SWAR: each
        // test sets a byte's high bit when that byte is what it looks for).
        let raw = UnsafeRawPointer(base)
        while end &- k >= 8 {
            let w = raw.loadUnaligned(fromByteOffset: k, as: UInt64.self)
            let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
            let control = (w &- ones &* 0x20) & ~w
            let quote = w ^ (ones &* 0x22), backslash = w ^ (ones &* 0x5C)
            let special = (control | ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | w) & highs
            guard special == 0 else {
                #if _endian(little)
                // The lowest flag is exact (borrows only carry a false flag
                // above a true one), and the lowest byte is the first.
                return k &+ special.trailingZeroBitCount >> 3
                #else
                break
                #endif
            }
            k &+= 8
        }
        while k < end {
            let b = base[k]
            guard b &- 0x20 < 0x60 && b != UInt8(ascii: "\"") && b != UInt8(ascii: "\\") else { return k }
            k += 1
        }
        return k
    }

    private struct Scanner {
        let base: UnsafePointer<UInt8>
        let end: Int
        var i: Int

        mutating func value(depth: Int) -> Bool {
            guard i < end else { return false }
            switch base[i] {
            case UInt8(ascii: "\""): return string()
            case UInt8(ascii: "{"): return object(depth: depth + 1)
            case UInt8(ascii: "["): return array(depth: depth + 1)
            case UInt8(ascii: "t"): return word("true")
            case UInt8(ascii: "f"): return word("false")
            case UInt8(ascii: "n"): return word("null")
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number()
            default: return false
            }
        }

        private mutating func object(depth: Int) -> Bool {
            guard depth <= CompactJSON.maxDepth else { return false }
            i += 1
            if i < end, base[i] == UInt8(ascii: "}") { i += 1; return true }
            while true {
                guard i < end, base[i] == UInt8(ascii: "\""), string() else { return false }
                guard i < end, base[i] == UInt8(ascii: ":") else { return false }
                i += 1
                guard value(depth: depth), i < end else { return false }
                switch base[i] {
                case UInt8(ascii: ","): i += 1
                case UInt8(ascii: "}"): i += 1; return true
                default: return false
                }
            }
        }

        private mutating func array(depth: Int) -> Bool {
            guard depth <= CompactJSON.maxDepth else { return false }
            i += 1
            if i < end, base[i] == UInt8(ascii: "]") { i += 1; return true }
            while true {
                guard value(depth: depth), i < end else { return false }
                switch base[i] {
                case UInt8(ascii: ","): i += 1
                case UInt8(ascii: "]"): i += 1; return true
                default: return false
                }
            }
        }

        private mutating func word(_ w: StaticString) -> Bool {
            let n = w.utf8CodeUnitCount
            guard i + n <= end else { return false }
            for k in 0..<n where base[i + k] != w.utf8Start[k] { return false }
            i += n
            return true
        }

        /// JSON's number grammar; the parser keeps the literal, so any valid one is compact.
        private mutating func number() -> Bool {
            if base[i] == UInt8(ascii: "-") { i += 1 }
            guard i < end else { return false }
            if base[i] == UInt8(ascii: "0") {
                i += 1
            } else if isDigit(base[i]) {
                while i < end, isDigit(base[i]) { i += 1 }
            } else {
                return false
            }
            if i < end, base[i] == UInt8(ascii: ".") {
                i += 1
                guard i < end, isDigit(base[i]) else { return false }
                while i < end, isDigit(base[i]) { i += 1 }
            }
            if i < end, base[i] == UInt8(ascii: "e") || base[i] == UInt8(ascii: "E") {
                i += 1
                if i < end, base[i] == UInt8(ascii: "+") || base[i] == UInt8(ascii: "-") { i += 1 }
                guard i < end, isDigit(base[i]) else { return false }
                while i < end, isDigit(base[i]) { i += 1 }
            }
            return true
        }

        @inline(__always)
        private func isDigit(_ b: UInt8) -> Bool { b &- UInt8(ascii: "0") < 10 }

        mutating func string() -> Bool {
            // A local index: the loop then runs in registers, not through `self`.
            var k = i + 1
            defer { i = k }
            while k < end {
                k = CompactJSON.plainRun(base, from: k, end: end)
                guard k < end else { break }
                let b = base[k]
                if b == UInt8(ascii: "\"") { k += 1; return true }
                if b < 0x20 { return false }
                if b == UInt8(ascii: "\\") {
                    i = k
                    guard writerEscape() else { return false }
                    k = i
                    continue
                }
                guard case .valid(let n) = UTF8Sequence.check(base, at: k, end: end) else { return false }
                k += n
            }
            return false
        }

        /// An escape exactly as `JSONWriter.writeString` writes one: the short
        /// forms for `"` `\` and five controls, `\u00xx` in lower-case hex for
        /// the other controls, and nothing else.
        private mutating func writerEscape() -> Bool {
            guard i + 1 < end else { return false }
            switch base[i + 1] {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "n"), UInt8(ascii: "r"),
                 UInt8(ascii: "t"), UInt8(ascii: "b"), UInt8(ascii: "f"):
                i += 2
                return true
            case UInt8(ascii: "u"):
                guard i + 6 <= end, base[i + 2] == UInt8(ascii: "0"), base[i + 3] == UInt8(ascii: "0") else { return false }
                let hi = base[i + 4], lo = base[i + 5]
                guard hi == UInt8(ascii: "0") || hi == UInt8(ascii: "1") else { return false }
                let low: UInt8
                switch lo {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): low = lo - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): low = lo - UInt8(ascii: "a") + 10
                default: return false
                }
                let scalar = (hi - UInt8(ascii: "0")) << 4 | low
                // These five have short forms, which the writer uses instead.
                guard ![0x08, 0x09, 0x0A, 0x0C, 0x0D].contains(scalar) else { return false }
                i += 6
                return true
            default:
                return false
            }
        }
    }
}
