import LarderJSON

/// Number formatting without Foundation.
enum Format {
    /// 1234567.8 → "1,234,568".
    static func count(_ x: Double) -> String {
        guard x.isFinite else { return "—" }
        return count(Int(x.rounded()))
    }

    static func count(_ n: Int) -> String {
        let digits = Array(String(abs(n)))
        var out = ""
        for (k, d) in digits.enumerated() {
            if k > 0 && (digits.count - k) % 3 == 0 { out.append(",") }
            out.append(d)
        }
        return (n < 0 ? "-" : "") + out
    }

    /// Fixed decimals: fixed(3.14159, 2) → "3.14".
    static func fixed(_ x: Double, _ decimals: Int) -> String {
        guard x.isFinite else { return "—" }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = Int((abs(x) * scale).rounded())
        let whole = scaled / Int(scale)
        var text = String(whole)
        if decimals > 0 {
            let frac = String(scaled % Int(scale))
            text += "." + String(repeating: "0", count: decimals - frac.count) + frac
        }
        return (x < 0 && scaled != 0 ? "-" : "") + text
    }

    /// A JSON number rounded to `decimals`.
    static func number(_ x: Double, _ decimals: Int) -> JSON {
        guard x.isFinite else { return .null }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        return .double((x * scale).rounded() / scale)
    }

    static func megabytes(kib: Int) -> Double { Double(kib) / 1024 }
}
