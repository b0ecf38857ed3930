import CLibPQ
import LarderStorage

/// Lends libpq the parameters of one statement as the four C arrays it takes
/// (types, value pointers, lengths, formats). The pointers point into the
/// values' own storage, valid only while the body runs: enough, since libpq
/// copies every parameter into its output buffer before the call returns,
/// and a value of several megabytes is then copied once, not twice.
struct PostgresParameters {
    private(set) var types: [Oid]
    private(set) var values: [UnsafePointer<CChar>?]
    private(set) var lengths: [Int32]
    private(set) var formats: [Int32]

    private init(count: Int) {
        types = Array(repeating: 0, count: count)
        values = Array(repeating: nil, count: count)
        lengths = Array(repeating: 0, count: count)
        formats = Array(repeating: 0, count: count)
    }

    /// Runs `body` with `parameters` laid out for libpq, int8 and bytea values in `format`.
    static func lend<R>(_ parameters: [PostgresValue], format: PostgresFormat, _ body: (PostgresParameters) -> R) -> R {
        var lent = PostgresParameters(count: parameters.count)
        return lend(parameters, from: 0, format: format, into: &lent, body)
    }

    /// The C arrays, for a libpq call made inside `body`.
    func withArrays<R>(_ body: (Int32, UnsafePointer<Oid>?, UnsafePointer<UnsafePointer<CChar>?>?,
                                UnsafePointer<Int32>?, UnsafePointer<Int32>?) -> R) -> R {
        types.withUnsafeBufferPointer { types in
            values.withUnsafeBufferPointer { values in
                lengths.withUnsafeBufferPointer { lengths in
                    formats.withUnsafeBufferPointer { formats in
                        body(Int32(types.count), types.baseAddress, values.baseAddress, lengths.baseAddress, formats.baseAddress)
                    }
                }
            }
        }
    }

    /// A non-null pointer for an empty value: libpq reads a null pointer as SQL NULL.
    private static let empty: StaticString = ""

    /// Points parameter `i` at `bytes`. libpq takes the length of a binary
    /// value from `lengths`, and that of a text value from its terminating
    /// NUL, which `bytes` then ends with.
    private mutating func set(_ i: Int, _ type: PostgresType, _ bytes: UnsafeRawBufferPointer, _ format: PostgresFormat) {
        types[i] = type.rawValue
        let base = bytes.baseAddress ?? UnsafeRawPointer(Self.empty.utf8Start)
        values[i] = base.assumingMemoryBound(to: CChar.self)
        lengths[i] = Int32(format == .text ? bytes.count - 1 : bytes.count)
        formats[i] = format.rawValue
    }

    private static func terminated(_ text: [UInt8]) -> [UInt8] { text + [0] }

    /// Lays out the parameter at `i`, then those after it, each inside the
    /// scope that keeps its bytes valid, and runs `body` in the innermost.
    private static func lend<R>(_ parameters: [PostgresValue], from i: Int, format: PostgresFormat,
                                into lent: inout PostgresParameters, _ body: (PostgresParameters) -> R) -> R {
        guard i < parameters.count else { return body(lent) }
        func next(_ lent: inout PostgresParameters) -> R { lend(parameters, from: i + 1, format: format, into: &lent, body) }
        switch parameters[i] {
        case .null:
            lent.types[i] = PostgresType.unspecified.rawValue
            return next(&lent)
        case .int8(let value):
            if format == .binary {
                return withUnsafeBytes(of: value.bigEndian) { bytes in
                    lent.set(i, .int8, bytes, .binary)
                    return next(&lent)
                }
            }
            return terminated(Array(String(value).utf8)).withUnsafeBytes { bytes in
                lent.set(i, .int8, bytes, .text)
                return next(&lent)
            }
        case .int4(let value):
            return withUnsafeBytes(of: value.bigEndian) { bytes in
                lent.set(i, .int4, bytes, .binary)
                return next(&lent)
            }
        case .float8(let value):
            return withUnsafeBytes(of: value.bitPattern.bigEndian) { bytes in
                lent.set(i, .float8, bytes, .binary)
                return next(&lent)
            }
        case .literal(let text):
            return terminated(Array(text.utf8)).withUnsafeBytes { bytes in
                lent.set(i, .unspecified, bytes, .text)
                return next(&lent)
            }
        case .text(var text):
            return text.withUTF8 { utf8 in
                lent.set(i, .text, UnsafeRawBufferPointer(utf8), .binary)
                return next(&lent)
            }
        case .bytea(let bytes):
            if format == .binary {
                return bytes.withUnsafeBytes { bytes in
                    lent.set(i, .bytea, bytes, .binary)
                    return next(&lent)
                }
            }
            return terminated(hexEscaped(bytes)).withUnsafeBytes { bytes in
                lent.set(i, .bytea, bytes, .text)
                return next(&lent)
            }
        }
    }

    /// bytea's text form: `\x` and two hex digits a byte.
    private static func hexEscaped(_ bytes: [UInt8]) -> [UInt8] {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8](repeating: 0, count: 2 + 2 * bytes.count)
        text[0] = UInt8(ascii: "\\")
        text[1] = UInt8(ascii: "x")
        for (n, byte) in bytes.enumerated() {
            text[2 + 2 * n] = digits[Int(byte >> 4)]
            text[3 + 2 * n] = digits[Int(byte & 0xF)]
        }
        return text
    }
}
