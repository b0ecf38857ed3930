/// Keys of exactly 16 bytes: a 3-letter prefix and 13 zero-padded digits.
struct KeySpace {
    let prefix: [UInt8]

    init(_ prefix: String) {
        precondition(prefix.utf8.count == 3, "key prefixes are three bytes")
        self.prefix = Array(prefix.utf8)
    }

    static let width = 16

    func append(_ n: Int, to bytes: inout [UInt8]) {
        bytes += prefix
        var digits = [UInt8](repeating: UInt8(ascii: "0"), count: 13)
        var v = n
        var k = 12
        while v > 0 && k >= 0 {
            digits[k] = UInt8(ascii: "0") + UInt8(v % 10)
            v /= 10
            k -= 1
        }
        bytes += digits
    }

    func key(_ n: Int) -> [UInt8] {
        var b: [UInt8] = []
        append(n, to: &b)
        return b
    }
}
