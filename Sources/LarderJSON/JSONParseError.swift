/// Why a text is not JSON, and where: `offset` is the byte index of the problem.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Reason: Sendable, Equatable {
        case unexpectedEnd
        case unexpectedByte(UInt8)
        case trailingGarbage
        case invalidUTF8
        case controlCharacterInString
        case invalidEscape
        case loneSurrogate
        case invalidNumber
        case tooDeep(limit: Int)
    }

    public let reason: Reason
    public let offset: Int

    public var description: String {
        switch reason {
        case .unexpectedEnd: return "unexpected end of input at byte \(offset)"
        case .unexpectedByte(let b):
            if b >= 0x20 && b < 0x7f {
                return "unexpected character '\(Character(Unicode.Scalar(b)))' at byte \(offset)"
            }
            return "unexpected byte 0x\(String(b, radix: 16)) at byte \(offset)"
        case .trailingGarbage: return "unexpected data after the JSON value at byte \(offset)"
        case .invalidUTF8: return "invalid UTF-8 at byte \(offset)"
        case .controlCharacterInString: return "unescaped control character in string at byte \(offset)"
        case .invalidEscape: return "invalid escape sequence at byte \(offset)"
        case .loneSurrogate: return "unpaired UTF-16 surrogate in \\u escape at byte \(offset)"
        case .invalidNumber: return "invalid number at byte \(offset)"
        case .tooDeep(let limit): return "nesting deeper than \(limit) levels at byte \(offset)"
        }
    }
}
