import LarderJSON

/// Standard base64 (RFC 4648, with padding), for `data` values in the protocol.
///
/// Both directions work on borrowed bytes and write their result once, into
/// storage of its final size: a 60 MB value went through three whole copies
/// on the way out (an array, a `String` of it, the escaped copy in the
/// answer) and one on the way in (the text as an array).
public enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let decodeTable: [UInt8] = {
        var t = [UInt8](repeating: 0xFF, count: 256)
        for (i, c) in alphabet.enumerated() { t[Int(c)] = UInt8(i) }
        return t
    }()

    public static func encode(_ bytes: [UInt8]) -> String {
        guard !bytes.isEmpty else { return "" }
        return bytes.withUnsafeBufferPointer { bytes in
            String(unsafeUninitializedCapacity: encodedCount(bytes.count)) { encode(bytes, to: $0.baseAddress!) }
        }
    }

    /// Appends the base64 text of `bytes` to `w` (it needs no escaping in a JSON string).
    public static func encode(_ bytes: UnsafeBufferPointer<UInt8>, into w: inout JSONWriter) {
        let n = encodedCount(bytes.count)
        w.append(upTo: n) { encode(bytes, to: $0) }
    }

    private static func encodedCount(_ count: Int) -> Int { (count + 2) / 3 * 4 }

    /// Writes the text of `bytes` at `out`; returns its length.
    private static func encode(_ bytes: UnsafeBufferPointer<UInt8>, to out: UnsafeMutablePointer<UInt8>) -> Int {
        alphabet.withUnsafeBufferPointer { alphabet in
            var i = 0, o = 0
            while i + 3 <= bytes.count {
                let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
                out[o] = alphabet[Int(n >> 18 & 63)]; out[o + 1] = alphabet[Int(n >> 12 & 63)]
                out[o + 2] = alphabet[Int(n >> 6 & 63)]; out[o + 3] = alphabet[Int(n & 63)]
                i += 3
                o += 4
            }
            let rest = bytes.count - i
            if rest > 0 {
                let n = UInt32(bytes[i]) << 16 | (rest == 2 ? UInt32(bytes[i + 1]) << 8 : 0)
                out[o] = alphabet[Int(n >> 18 & 63)]; out[o + 1] = alphabet[Int(n >> 12 & 63)]
                out[o + 2] = rest == 2 ? alphabet[Int(n >> 6 & 63)] : UInt8(ascii: "=")
                out[o + 3] = UInt8(ascii: "=")
                o += 4
            }
            return o
        }
    }

    /// Nil unless `text` is canonical padded base64 (whitespace is not allowed).
    public static func decode(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { decode($0) }
    }

    /// `decode` of text given as its UTF-8 bytes.
    public static func decode(_ chars: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard let count = decodedCount(chars) else { return nil }
        return [UInt8](unsafeUninitializedCapacity: count) { out, written in
            written = decode(chars, to: out.baseAddress!)
        }
    }

    /// Decodes `chars` over themselves and returns how many bytes they became
    /// (the first that many of `chars`), or nil, leaving them untouched, unless
    /// they are canonical padded base64. A large `data` value is decoded in the
    /// request that brought it: a decoded copy beside the request was a third
    /// of the peak memory of storing it (3.3× the value; 2.3× in place).
    public static func decodeInPlace(_ chars: UnsafeMutableBufferPointer<UInt8>) -> Int? {
        guard decodedCount(UnsafeBufferPointer(chars)) != nil else { return nil }
        return decode(UnsafeBufferPointer(chars), to: chars.baseAddress!)
    }

    /// The decoded size of `chars`, or nil unless they are canonical padded base64.
    public static func decodedCount(_ chars: UnsafeBufferPointer<UInt8>) -> Int? {
        guard chars.count % 4 == 0 else { return nil }
        guard !chars.isEmpty else { return 0 }
        // Padding may end only the last group of four.
        let pad = chars[chars.count - 1] != 61 ? 0 : (chars[chars.count - 2] == 61 ? 2 : 1)
        let valid = decodeTable.withUnsafeBufferPointer { table in
            for i in 0..<(chars.count - pad) where table[Int(chars[i])] == 0xFF { return false }
            return true
        }
        return valid ? chars.count / 4 * 3 - pad : nil
    }

    /// Writes the bytes of `chars`, already checked by `decodedCount`, at `out`
    /// and returns how many. `out` may be `chars` itself: each group of four is
    /// read whole before its three bytes are written, never past it.
    private static func decode(_ chars: UnsafeBufferPointer<UInt8>, to out: UnsafeMutablePointer<UInt8>) -> Int {
        guard !chars.isEmpty else { return 0 }
        let pad = chars[chars.count - 1] != 61 ? 0 : (chars[chars.count - 2] == 61 ? 2 : 1)
        return decodeTable.withUnsafeBufferPointer { table in
            var i = 0, o = 0
            while i < chars.count {
                let last = i + 4 == chars.count ? pad : 0
                var n: UInt32 = 0
                for k in 0..<4 {
                    n = k >= 4 - last ? n << 6 : n << 6 | UInt32(table[Int(chars[i + k])])
                }
                out[o] = UInt8(n >> 16 & 0xFF)
                if last < 2 { out[o + 1] = UInt8(n >> 8 & 0xFF) }
                if last < 1 { out[o + 2] = UInt8(n & 0xFF) }
                o += 3 - last
                i += 4
            }
            return o
        }
    }
}
