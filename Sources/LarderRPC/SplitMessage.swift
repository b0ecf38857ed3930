import LarderJSON

/// A message spread over several lines, as pretty-printed JSON is, gathered
/// while line framing is in use so that it gets one clear answer.
///
/// Line framing takes each line as a message, so `{` alone on a line, then
/// `"jsonrpc": "2.0",` and so on, would each be a parse error answered with
/// id null — and the client would wait for its id forever. Instead, a line
/// that leaves an object or array open starts one of these; the lines that
/// follow are added until the brackets close, and then the whole text gets a
/// single -32700 that says each message must be one line, with the id read
/// from the gathered text when it has one.
struct SplitMessage {
    private(set) var text: [UInt8]
    private(set) var lines = 1
    /// Objects and arrays open at the end of the text, outside strings.
    private var depth = 0
    private var inString = false
    private var escaped = false

    /// The start of a split message, if `line` leaves a bracket open.
    init?(startingWith line: UnsafeBufferPointer<UInt8>) {
        text = Array(line)
        scan(line)
        guard depth > 0 else { return nil }
    }

    /// Adds the next line; true once every bracket the message opened is closed.
    mutating func append(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        text.append(0x0A)
        text.append(contentsOf: line)
        lines += 1
        scan(line)
        return depth <= 0
    }

    private mutating func scan(_ bytes: UnsafeBufferPointer<UInt8>) {
        for b in bytes {
            if inString {
                if escaped { escaped = false } else if b == UInt8(ascii: "\\") { escaped = true } else if b == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch b {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
            default: break
            }
        }
    }

    /// Whether `line` is a whole message of its own (a JSON-RPC object), which
    /// means the split message before it was never going to be finished.
    static func isWholeMessage(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let json = try? JSONParser.parse(line), case .object(let o) = json else { return false }
        return o["jsonrpc"] != nil
    }

    /// The answer: -32700, to the gathered message's id when it can be read.
    var error: (ResponseError, RequestID) {
        let id = (try? JSONParser.parse(text))?["id"].flatMap(RequestID.init) ?? .null
        return (.parseError("each message must be one line of JSON, and this one was spread over \(lines) lines (as pretty-printed JSON is): send it on one line, or use Content-Length framing"), id)
    }
}
