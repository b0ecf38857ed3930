import LarderJSON

/// A message spread over several lines, as pretty-printed JSON is, gathered
/// while line framing is in use so that it gets one clear answer and none of
/// it is run.
///
/// Line framing takes each line as a message, so `{` alone on a line, then
/// `"jsonrpc": "2.0",` and so on, would each be a parse error answered with
/// id null — and the client would wait for its id forever; and of a batch
/// printed one request a line, the last request (the one without a comma
/// after it) is a whole message of its own, which would run. Instead, a line
/// that leaves an object or array open starts one of these; the lines that
/// follow are added until the brackets close, and then the whole text gets a
/// single -32700 that says each message must be one line, with the id read
/// from the gathered text when it has one.
///
/// A line cut short (a client that died mid-write) leaves brackets open that
/// nothing will close, and the requests after it must not be swallowed. So
/// the gathered text is followed token by token, as a JSON parser reads it: a
/// line whose first token cannot come next (`{` where a member name or a `,`
/// must) is not part of the message, which ends before it. A line that can
/// come next is part of it, even a whole request: where it stands, it is an
/// element or a member's value. And since a JSON string never holds a raw
/// LF, a line that ends inside a string is the message's last. Once the
/// gathered text has a mistake in the middle of a line, nothing tells any
/// longer what may come next, and the brackets it left open may never
/// close: then a line that is a whole JSON-RPC message of its own ends it,
/// so that garbage followed by requests never swallows them all.
struct SplitMessage {
    /// The text gathered, until it is over the size limit.
    private(set) var text: [UInt8]
    /// The text's size, kept or not.
    private(set) var size: Int
    /// Over the size limit: answered already (-32600), and skipped through
    /// its end without being kept.
    private(set) var isOversized = false
    private(set) var lines = 1
    /// Objects and arrays open at the end of the text, outside strings: `{` or `[`.
    private var open: [UInt8] = []
    /// Brackets open past the nesting limit (1.5), counted only: a message
    /// skipped past the size limit then holds no more than that many.
    private var deeper = 0
    private var inString = false
    private var escaped = false
    /// Inside a number or `true`, `false`, `null`.
    private var inLiteral = false
    /// What JSON allows next, outside strings.
    private var expected = Expected.value
    /// The text so far could start a JSON text. After a mistake in the middle
    /// of a line only the brackets are followed.
    private var wellFormed = true

    private enum Expected {
        case value, valueOrEnd, name, nameOrEnd, colon, commaOrEnd
    }

    /// How a line added to a message leaves it.
    enum Progress {
        /// Brackets are still open: the lines that follow belong to it.
        case open
        /// The line is the message's last: it closed every bracket the message
        /// opened, or it ended inside a string.
        case ended
        /// The line cannot come next: it is not part of the message, which
        /// ends before it.
        case notPart
    }

    /// The start of a split message, if `line` leaves a bracket open (and
    /// does not end inside a string).
    init?(startingWith line: UnsafeBufferPointer<UInt8>) {
        text = Array(line)
        size = line.count
        guard !scan(line), !inString, !open.isEmpty else { return nil }
    }

    /// Adds the next line, unless it cannot come next.
    mutating func append(_ line: UnsafeBufferPointer<UInt8>) -> Progress {
        if wellFormed, let first = line.first(where: { !Self.isSpace($0) }), !allows(first) { return .notPart }
        if !wellFormed && Self.isWholeMessage(line) { return .notPart }
        if !isOversized {
            text.append(0x0A)
            text.append(contentsOf: line)
        }
        size += 1 + line.count
        lines += 1
        // The LF between the lines ends a number or a literal.
        inLiteral = false
        return scan(line) || inString ? .ended : .open
    }

    /// Stops keeping the text, once it is over the size limit and answered:
    /// the rest of the message is followed only to find where it ends.
    mutating func forgetText() {
        text = []
        isOversized = true
    }

    /// Whether `b`, outside a string and a literal, can come next.
    private func allows(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "\""): expected != .colon && expected != .commaOrEnd
        case UInt8(ascii: "{"), UInt8(ascii: "["): expected == .value || expected == .valueOrEnd
        case UInt8(ascii: "}"): open.last == UInt8(ascii: "{") && (expected == .commaOrEnd || expected == .nameOrEnd)
        case UInt8(ascii: "]"): open.last == UInt8(ascii: "[") && (expected == .commaOrEnd || expected == .valueOrEnd)
        case UInt8(ascii: ":"): expected == .colon
        case UInt8(ascii: ","): expected == .commaOrEnd
        default: Self.isLiteral(b) && (expected == .value || expected == .valueOrEnd)
        }
    }

    /// Follows `bytes`; true once every bracket the message opened is closed.
    private mutating func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for b in bytes {
            if inString {
                if escaped { escaped = false } else if b == UInt8(ascii: "\\") { escaped = true } else if b == UInt8(ascii: "\"") { inString = false }
                continue
            }
            if Self.isSpace(b) { inLiteral = false; continue }
            if inLiteral && Self.isLiteral(b) { continue }
            inLiteral = false
            if wellFormed && !allows(b) { wellFormed = false }
            switch b {
            case UInt8(ascii: "\""):
                expected = expected == .name || expected == .nameOrEnd ? .colon : .commaOrEnd
                inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                if open.count < JSONParser.defaultMaxDepth {
                    open.append(b)
                } else {
                    // Deeper than any message may nest (1.5): no longer JSON to follow.
                    deeper += 1
                    wellFormed = false
                }
                expected = b == UInt8(ascii: "{") ? .nameOrEnd : .valueOrEnd
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if deeper > 0 { deeper -= 1 } else { guard open.popLast() != nil, !open.isEmpty else { return true } }
                expected = .commaOrEnd
            case UInt8(ascii: ":"):
                expected = .value
            case UInt8(ascii: ","):
                expected = open.last == UInt8(ascii: "{") ? .name : .value
            default:
                inLiteral = true
                expected = .commaOrEnd
            }
        }
        return false
    }

    /// Whether `line` is a JSON-RPC message of its own (an object with `jsonrpc`).
    private static func isWholeMessage(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let json = try? JSONParser.parse(line), case .object(let o) = json else { return false }
        return o["jsonrpc"] != nil
    }

    private static func isSpace(_ b: UInt8) -> Bool {
        b == 0x20 || b == 0x09 || b == 0x0D || b == 0x0A
    }

    /// A byte of a number or of `true`, `false`, `null`.
    private static func isLiteral(_ b: UInt8) -> Bool {
        (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) || (b | 0x20 >= UInt8(ascii: "a") && b | 0x20 <= UInt8(ascii: "z"))
            || b == UInt8(ascii: "-") || b == UInt8(ascii: "+") || b == UInt8(ascii: ".")
    }

    /// The answer: -32700, to the gathered message's id when it can be read.
    var error: (ResponseError, RequestID) {
        let id = (try? JSONParser.parse(text))?["id"].flatMap(RequestID.init) ?? .null
        return (.parseError("each message must be one line of JSON, and this one was spread over \(lines) lines (as pretty-printed JSON is): send it on one line, or use Content-Length framing"), id)
    }
}
