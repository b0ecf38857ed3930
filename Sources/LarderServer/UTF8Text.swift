/// Strings handed to code that reads UTF-8 in place (the paths shared with
/// requests answered from their bytes), without copying them.
enum UTF8Text {
    static func with<R, E: Error>(_ s: String, _ body: (UnsafeBufferPointer<UInt8>) throws(E) -> R) throws(E) -> R {
        var s = s
        // `withUTF8` rethrows untyped errors; carrying the typed one out in a Result keeps it typed.
        let result: Swift.Result<R, E> = s.withUTF8 { bytes in Swift.Result { () throws(E) in try body(bytes) } }
        return try result.get()
    }

    static func with<R, E: Error>(_ a: String, _ b: String, _ c: String,
                                  _ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) throws(E) -> R) throws(E) -> R {
        try with(a) { (x) throws(E) in try with(b) { (y) throws(E) in try with(c) { (z) throws(E) in try body(x, y, z) } } }
    }
}
