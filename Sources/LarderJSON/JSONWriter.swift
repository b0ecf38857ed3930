/// Writes compact JSON into a byte buffer that callers reuse between messages.
///
/// Strings are escaped minimally: `"`, `\` and control characters; `/` and
/// non-ASCII text are written as they are.
public struct JSONWriter {
    public var bytes: [UInt8]

    public init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// Empties the buffer, keeping its storage.
    public mutating func reset() { bytes.removeAll(keepingCapacity: true) }

    public mutating func write(_ value: JSON) {
        switch value {
        case .null: writeASCII("null")
        case .bool(let b): writeASCII(b ? "true" : "false")
        case .number(let n): writeUTF8(n.literal)
        case .string(let s): writeString(s)
        case .fragment(let f): bytes.append(contentsOf: f.bytes)
        case .array(let a):
            bytes.append(UInt8(ascii: "["))
            // By index: iterating would copy each element out (and retain what it holds).
            for k in a.indices {
                if k > 0 { bytes.append(UInt8(ascii: ",")) }
                write(a[k])
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let o):
            bytes.append(UInt8(ascii: "{"))
            for k in o.members.indices {
                if k > 0 { bytes.append(UInt8(ascii: ",")) }
                writeString(o.members[k].key)
                bytes.append(UInt8(ascii: ":"))
                write(o.members[k].value)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// Appends bytes that are already valid JSON (or framing) unchanged.
    public mutating func writeRaw<Bytes: Sequence<UInt8>>(_ raw: Bytes) {
        bytes.append(contentsOf: raw)
    }

    public mutating func writeASCII(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    private mutating func writeUTF8(_ text: String) {
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    public mutating func writeString(_ string: String) {
        var string = string
        string.withUTF8 { utf8 in
            bytes.append(UInt8(ascii: "\""))
            var runStart = 0
            for k in 0..<utf8.count {
                let b = utf8[k]
                guard b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") else { continue }
                if runStart < k { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<k])) }
                runStart = k + 1
                bytes.append(UInt8(ascii: "\\"))
                switch b {
                case UInt8(ascii: "\""): bytes.append(UInt8(ascii: "\""))
                case UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\"))
                case 0x0A: bytes.append(UInt8(ascii: "n"))
                case 0x0D: bytes.append(UInt8(ascii: "r"))
                case 0x09: bytes.append(UInt8(ascii: "t"))
                case 0x08: bytes.append(UInt8(ascii: "b"))
                case 0x0C: bytes.append(UInt8(ascii: "f"))
                default:
                    let hex: [UInt8] = Array("0123456789abcdef".utf8)
                    bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(b >> 4)], hex[Int(b & 0xF)]])
                }
            }
            if runStart < utf8.count { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...])) }
            bytes.append(UInt8(ascii: "\""))
        }
    }
}

extension JSON {
    /// Compact UTF-8 encoding.
    public var encoded: [UInt8] {
        var writer = JSONWriter()
        writer.write(self)
        return writer.bytes
    }
}
