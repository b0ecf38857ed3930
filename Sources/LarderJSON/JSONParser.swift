/// An RFC 8259 parser over raw bytes.
///
/// Strict: one value, optional whitespace around it, nothing else; UTF-8 is
/// validated (no overlongs, no encoded surrogates, nothing past U+10FFFF);
/// `\u` surrogates must pair. Nesting is limited so that hostile input cannot
/// exhaust the stack.
public struct JSONParser {
    public static let defaultMaxDepth = 512

    private let base: UnsafePointer<UInt8>
    private let end: Int
    private var i = 0
    private var depth = 0
    private let maxDepth: Int

    private init(_ base: UnsafePointer<UInt8>, count: Int, maxDepth: Int) {
        self.base = base
        self.end = count
        self.maxDepth = maxDepth
    }

    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int = defaultMaxDepth) throws(JSONParseError) -> JSON {
        guard let start = bytes.baseAddress, bytes.count > 0 else {
            throw JSONParseError(reason: .unexpectedEnd, offset: 0)
        }
        var parser = JSONParser(start, count: bytes.count, maxDepth: maxDepth)
        parser.skipWhitespace()
        let value = try parser.parseValue()
        parser.skipWhitespace()
        if parser.i != parser.end { throw JSONParseError(reason: .trailingGarbage, offset: parser.i) }
        return value
    }

    public static func parse<Bytes: Collection<UInt8>>(_ bytes: Bytes, maxDepth: Int = defaultMaxDepth) throws(JSONParseError) -> JSON {
        let result: Result<JSON, JSONParseError>? = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(JSONParseError) -> JSON in try parse(buffer, maxDepth: maxDepth) }
        }
        if let result { return try result.get() }
        return try Array(bytes).withUnsafeBufferPointer { (buffer) throws(JSONParseError) -> JSON in
            try parse(buffer, maxDepth: maxDepth)
        }
    }

    public static func parse(_ text: String, maxDepth: Int = defaultMaxDepth) throws(JSONParseError) -> JSON {
        try parse(Array(text.utf8), maxDepth: maxDepth)
    }

    // MARK: - Values

    private func fail(_ reason: JSONParseError.Reason, at offset: Int? = nil) -> JSONParseError {
        JSONParseError(reason: reason, offset: offset ?? i)
    }

    private mutating func skipWhitespace() {
        while i < end {
            let b = base[i]
            guard b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 else { return }
            i += 1
        }
    }

    private mutating func parseValue() throws(JSONParseError) -> JSON {
        guard i < end else { throw fail(.unexpectedEnd) }
        switch base[i] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectWord("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectWord("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectWord("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        case let b: throw fail(.unexpectedByte(b))
        }
    }

    private mutating func expectWord(_ word: StaticString) throws(JSONParseError) {
        let w = word.utf8Start
        for k in 0..<word.utf8CodeUnitCount {
            guard i < end else { throw fail(.unexpectedEnd) }
            guard base[i] == w[k] else { throw fail(.unexpectedByte(base[i])) }
            i += 1
        }
    }

    private mutating func enter() throws(JSONParseError) {
        depth += 1
        if depth > maxDepth { throw fail(.tooDeep(limit: maxDepth)) }
    }

    private mutating func parseObject() throws(JSONParseError) -> JSON {
        try enter()
        i += 1
        var members: [(key: String, value: JSON)] = []
        // Most objects here are small requests; this saves the first regrowths.
        members.reserveCapacity(4)
        skipWhitespace()
        if i < end, base[i] == UInt8(ascii: "}") {
            i += 1
            depth -= 1
            return .object(JSONObject())
        }
        while true {
            guard i < end else { throw fail(.unexpectedEnd) }
            guard base[i] == UInt8(ascii: "\"") else { throw fail(.unexpectedByte(base[i])) }
            let key = try parseString()
            skipWhitespace()
            guard i < end else { throw fail(.unexpectedEnd) }
            guard base[i] == UInt8(ascii: ":") else { throw fail(.unexpectedByte(base[i])) }
            i += 1
            skipWhitespace()
            let value = try parseValue()
            members.append((key: key, value: value))
            skipWhitespace()
            guard i < end else { throw fail(.unexpectedEnd) }
            let b = base[i]
            i += 1
            if b == UInt8(ascii: ",") { skipWhitespace(); continue }
            if b == UInt8(ascii: "}") { break }
            throw fail(.unexpectedByte(b), at: i - 1)
        }
        depth -= 1
        var object = JSONObject()
        object.members = members
        return .object(object)
    }

    private mutating func parseArray() throws(JSONParseError) -> JSON {
        try enter()
        i += 1
        var elements: [JSON] = []
        skipWhitespace()
        if i < end, base[i] == UInt8(ascii: "]") {
            i += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            elements.append(try parseValue())
            skipWhitespace()
            guard i < end else { throw fail(.unexpectedEnd) }
            let b = base[i]
            i += 1
            if b == UInt8(ascii: ",") { skipWhitespace(); continue }
            if b == UInt8(ascii: "]") { break }
            throw fail(.unexpectedByte(b), at: i - 1)
        }
        depth -= 1
        return .array(elements)
    }

    // MARK: - Numbers

    private mutating func parseNumber() throws(JSONParseError) -> JSONNumber {
        let start = i
        if base[i] == UInt8(ascii: "-") { i += 1 }
        guard i < end else { throw fail(.unexpectedEnd) }
        if base[i] == UInt8(ascii: "0") {
            i += 1
        } else if isDigit(base[i]) {
            while i < end, isDigit(base[i]) { i += 1 }
        } else {
            throw fail(.invalidNumber)
        }
        if i < end, base[i] == UInt8(ascii: ".") {
            i += 1
            guard i < end, isDigit(base[i]) else { throw fail(i < end ? .invalidNumber : .unexpectedEnd) }
            while i < end, isDigit(base[i]) { i += 1 }
        }
        if i < end, base[i] == UInt8(ascii: "e") || base[i] == UInt8(ascii: "E") {
            i += 1
            if i < end, base[i] == UInt8(ascii: "+") || base[i] == UInt8(ascii: "-") { i += 1 }
            guard i < end, isDigit(base[i]) else { throw fail(i < end ? .invalidNumber : .unexpectedEnd) }
            while i < end, isDigit(base[i]) { i += 1 }
        }
        let text = String(decoding: UnsafeBufferPointer(start: base + start, count: i - start), as: UTF8.self)
        return JSONNumber(validLiteral: text)
    }

    @inline(__always)
    private func isDigit(_ b: UInt8) -> Bool { b &- UInt8(ascii: "0") < 10 }

    // MARK: - Strings

    private mutating func parseString() throws(JSONParseError) -> String {
        i += 1
        let start = i
        // Fast path: printable ASCII without escapes, by far the common case.
        while i < end {
            let b = base[i]
            if b == UInt8(ascii: "\"") {
                let s = String(decoding: UnsafeBufferPointer(start: base + start, count: i - start), as: UTF8.self)
                i += 1
                return s
            }
            if b == UInt8(ascii: "\\") || b < 0x20 || b >= 0x80 { break }
            i += 1
        }
        var buffer: [UInt8] = []
        buffer.reserveCapacity(i - start + 16)
        buffer.append(contentsOf: UnsafeBufferPointer(start: base + start, count: i - start))
        while true {
            guard i < end else { throw fail(.unexpectedEnd) }
            let b = base[i]
            switch b {
            case UInt8(ascii: "\""):
                i += 1
                return String(decoding: buffer, as: UTF8.self)
            case UInt8(ascii: "\\"):
                try parseEscape(into: &buffer)
            case 0..<0x20:
                throw fail(.controlCharacterInString)
            case 0x80...:
                let n = try utf8SequenceLength(at: i)
                buffer.append(contentsOf: UnsafeBufferPointer(start: base + i, count: n))
                i += n
            default:
                buffer.append(b)
                i += 1
            }
        }
    }

    /// Validates the multi-byte UTF-8 sequence at `at` and returns its length.
    private func utf8SequenceLength(at: Int) throws(JSONParseError) -> Int {
        switch UTF8Sequence.check(base, at: at, end: end) {
        case .valid(let length): return length
        case .invalid: throw fail(.invalidUTF8, at: at)
        case .truncated: throw fail(.unexpectedEnd, at: end)
        }
    }

    private mutating func parseEscape(into buffer: inout [UInt8]) throws(JSONParseError) {
        let escapeStart = i
        i += 1
        guard i < end else { throw fail(.unexpectedEnd) }
        let c = base[i]
        i += 1
        switch c {
        case UInt8(ascii: "\""): buffer.append(0x22)
        case UInt8(ascii: "\\"): buffer.append(0x5C)
        case UInt8(ascii: "/"): buffer.append(0x2F)
        case UInt8(ascii: "b"): buffer.append(0x08)
        case UInt8(ascii: "f"): buffer.append(0x0C)
        case UInt8(ascii: "n"): buffer.append(0x0A)
        case UInt8(ascii: "r"): buffer.append(0x0D)
        case UInt8(ascii: "t"): buffer.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = UInt32(try hex4())
            if scalar >= 0xD800 && scalar <= 0xDBFF {
                guard i + 1 < end, base[i] == UInt8(ascii: "\\"), base[i + 1] == UInt8(ascii: "u") else {
                    throw fail(.loneSurrogate, at: escapeStart)
                }
                i += 2
                let low = UInt32(try hex4())
                guard low >= 0xDC00 && low <= 0xDFFF else { throw fail(.loneSurrogate, at: escapeStart) }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if scalar >= 0xDC00 && scalar <= 0xDFFF {
                throw fail(.loneSurrogate, at: escapeStart)
            }
            appendUTF8(scalar, to: &buffer)
        default:
            throw fail(.invalidEscape, at: escapeStart)
        }
    }

    private mutating func hex4() throws(JSONParseError) -> UInt16 {
        guard i + 4 <= end else { throw fail(.unexpectedEnd, at: end) }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let b = base[i]
            let digit: UInt8
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = b - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = b - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = b - UInt8(ascii: "A") + 10
            default: throw fail(.invalidEscape)
            }
            value = value << 4 | UInt16(digit)
            i += 1
        }
        return value
    }

    private func appendUTF8(_ scalar: UInt32, to buffer: inout [UInt8]) {
        switch scalar {
        case 0..<0x80:
            buffer.append(UInt8(scalar))
        case 0x80..<0x800:
            buffer.append(UInt8(0xC0 | (scalar >> 6)))
            buffer.append(UInt8(0x80 | (scalar & 0x3F)))
        case 0x800..<0x10000:
            buffer.append(UInt8(0xE0 | (scalar >> 12)))
            buffer.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
            buffer.append(UInt8(0x80 | (scalar & 0x3F)))
        default:
            buffer.append(UInt8(0xF0 | (scalar >> 18)))
            buffer.append(UInt8(0x80 | ((scalar >> 12) & 0x3F)))
            buffer.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
            buffer.append(UInt8(0x80 | (scalar & 0x3F)))
        }
    }
}
