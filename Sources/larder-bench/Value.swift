/// Stored values: a JSON string of exactly `size` bytes once encoded (quotes
/// included), so Larder stores and reports `size` bytes.
enum Value {
    static func json(size: Int) -> [UInt8] {
        let letters = Array("abcdefghijklmnopqrstuvwxyz0123456789".utf8)
        var v: [UInt8] = [UInt8(ascii: "\"")]
        v.reserveCapacity(size)
        for k in 0..<(size - 2) { v.append(letters[k % letters.count]) }
        v.append(UInt8(ascii: "\""))
        return v
    }

    static func label(_ size: Int) -> String { size >= 1024 ? "\(size / 1024) KiB" : "\(size) B" }
    static func tag(_ size: Int) -> String { size >= 1024 ? "\(size / 1024)KiB" : "\(size)B" }
}
