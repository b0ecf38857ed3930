extension StringProtocol {
    /// The text as an error message or its `data` may repeat it to the
    /// client: whole up to 200 UTF-8 bytes; else as many of its first 200
    /// bytes as end on a character boundary (never half a UTF-8 sequence),
    /// followed by "…". A client that sends a 10 MB method name must not get
    /// 10 MB back, and a person reading the error needs only the start.
    public var echoed: String {
        var k = utf8.startIndex
        var taken = 0
        // Where the last character that began by byte `taken` began.
        var cut = k
        while k != utf8.endIndex {
            if !UTF8.isContinuation(utf8[k]) { cut = k }
            if taken == echoedBytes { return String(decoding: utf8[..<cut], as: UTF8.self) + "…" }
            utf8.formIndex(after: &k)
            taken += 1
        }
        return String(self)
    }
}

/// At most this many bytes of client text are repeated in an error (SPEC §11).
private let echoedBytes = 200
