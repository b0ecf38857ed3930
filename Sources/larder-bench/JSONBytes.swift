/// Appending JSON text to request bytes while batches are encoded (before timing).
extension Array where Element == UInt8 {
    mutating func append(text: String) { append(contentsOf: text.utf8) }

    mutating func append(int n: Int) { append(contentsOf: String(n).utf8) }

    /// `n` as at least two digits.
    mutating func append(twoDigits n: Int) {
        if n < 10 { append(UInt8(ascii: "0")) }
        append(int: n)
    }

    /// `"YYYY-MM-DDThh:mm:ssZ"`, quotes included (days 1–28, so every month has them).
    mutating func append(date year: Int, _ month: Int, _ day: Int, seconds: Int = 0) {
        append(UInt8(ascii: "\""))
        append(int: year)
        append(UInt8(ascii: "-"))
        append(twoDigits: month)
        append(UInt8(ascii: "-"))
        append(twoDigits: day)
        append(UInt8(ascii: "T"))
        append(twoDigits: seconds / 3600 % 24)
        append(UInt8(ascii: ":"))
        append(twoDigits: seconds / 60 % 60)
        append(UInt8(ascii: ":"))
        append(twoDigits: seconds % 60)
        append(text: "Z\"")
    }
}
