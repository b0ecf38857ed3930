/// Validation of one multi-byte UTF-8 sequence (Unicode table 3-7): no
/// overlongs, no encoded surrogates, nothing past U+10FFFF.
enum UTF8Sequence {
    enum Check {
        case valid(length: Int)
        case invalid
        /// The input ends inside a sequence that was valid so far.
        case truncated
    }

    /// Checks the sequence whose lead byte (0x80 or above) is `base[at]`; `end` bounds the input.
    @inline(__always)
    static func check(_ base: UnsafePointer<UInt8>, at: Int, end: Int) -> Check {
        let b0 = base[at]
        let length: Int
        var lo: UInt8 = 0x80, hi: UInt8 = 0xBF
        switch b0 {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; lo = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; hi = 0x9F
        case 0xF0: length = 4; lo = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; hi = 0x8F
        default: return .invalid
        }
        guard at + length <= end else {
            // A truncated sequence is still invalid UTF-8 if what is there is wrong.
            for k in 1..<(end - at) where base[at + k] & 0xC0 != 0x80 { return .invalid }
            return .truncated
        }
        let b1 = base[at + 1]
        guard b1 >= lo && b1 <= hi else { return .invalid }
        for k in 2..<max(2, length) where base[at + k] & 0xC0 != 0x80 { return .invalid }
        return .valid(length: length)
    }
}
