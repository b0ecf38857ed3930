/// The bytes of a key (its group's UTF-8, then its own), held inline when
/// they are short, as most keys are.
///
/// A lookup in the memory tier compares the request's key with the stored
/// one; held in a separate allocation, the stored bytes were one more cache
/// miss on every hit in a large tier, and one more allocation per entry.
struct KeyBytes: Sendable {
    static let inlineCapacity = 24

    private var words: (UInt64, UInt64, UInt64) = (0, 0, 0)
    /// The bytes, when there are more than fit inline.
    private var spilled: [UInt8]?
    private let length: UInt32
    var count: Int { Int(length) }

    init(_ first: UnsafeBufferPointer<UInt8>, _ second: UnsafeBufferPointer<UInt8>) {
        let count = first.count + second.count
        length = UInt32(count)
        if count <= Self.inlineCapacity {
            withUnsafeMutableBytes(of: &words) { raw in
                if let base = first.baseAddress { raw.baseAddress!.copyMemory(from: base, byteCount: first.count) }
                if let base = second.baseAddress { (raw.baseAddress! + first.count).copyMemory(from: base, byteCount: second.count) }
            }
        } else {
            spilled = Array(first) + Array(second)
        }
    }

    func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        if let spilled { return try spilled.withUnsafeBufferPointer(body) }
        var copy = words
        return try withUnsafeMutableBytes(of: &copy) { raw in
            try body(UnsafeBufferPointer(rebasing: raw.bindMemory(to: UInt8.self).prefix(count)))
        }
    }
}
