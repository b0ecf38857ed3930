/// The hash of a key: SipHash-1-3 (the function Swift's `Hasher` uses),
/// keyed with a random seed drawn once per process, so that keys chosen to
/// collide cannot be found in advance.
///
/// Written out rather than taken from `Hasher`: a key arrives as two byte
/// runs (group and key) and `Hasher` took three calls and a finalisation
/// through its general machinery, about a tenth of a whole memory hit. This
/// does one pass over the bytes.
struct KeyHash {
    private static let seed: (UInt64, UInt64) = {
        var random = SystemRandomNumberGenerator()
        return (random.next(), random.next())
    }()

    private var v0: UInt64, v1: UInt64, v2: UInt64, v3: UInt64
    /// Bytes not yet compressed (fewer than 8), lowest first.
    private var tail: UInt64 = 0
    private var tailCount = 0
    private var length = 0

    /// The hash of `group`'s bytes, then `key`'s, then the group's length
    /// (so that the same bytes split differently hash differently).
    static func of(group: UnsafeBufferPointer<UInt8>, key: UnsafeBufferPointer<UInt8>) -> Int {
        var h = KeyHash()
        h.absorb(group)
        h.absorb(key)
        var groupCount = UInt64(group.count).littleEndian
        withUnsafeMutableBytes(of: &groupCount) { h.absorb(UnsafeBufferPointer($0.bindMemory(to: UInt8.self))) }
        return Int(truncatingIfNeeded: h.finalize())
    }

    private init() {
        let (k0, k1) = Self.seed
        v0 = k0 ^ 0x736f_6d65_7073_6575
        v1 = k1 ^ 0x646f_7261_6e64_6f6d
        v2 = k0 ^ 0x6c79_6765_6e65_7261
        v3 = k1 ^ 0x7465_6462_7974_6573
    }

    @inline(__always)
    private mutating func absorb(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress else { return }
        let n = bytes.count
        length &+= n
        var i = 0
        if tailCount > 0 {
            while tailCount < 8 && i < n {
                tail |= UInt64(base[i]) &<< (8 * UInt64(tailCount))
                tailCount += 1
                i += 1
            }
            guard tailCount == 8 else { return }
            compress(tail)
            tail = 0
            tailCount = 0
        }
        let raw = UnsafeRawPointer(base)
        while n - i >= 8 {
            compress(UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)))
            i += 8
        }
        while i < n {
            tail |= UInt64(base[i]) &<< (8 * UInt64(tailCount))
            tailCount += 1
            i += 1
        }
    }

    @inline(__always)
    private mutating func compress(_ m: UInt64) {
        v3 ^= m
        round()
        v0 ^= m
    }

    private mutating func finalize() -> UInt64 {
        compress(UInt64(truncatingIfNeeded: length) &<< 56 | tail)
        v2 ^= 0xff
        round()
        round()
        round()
        return v0 ^ v1 ^ v2 ^ v3
    }

    @inline(__always)
    private mutating func round() {
        v0 &+= v1; v1 = v1.rotated(13); v1 ^= v0; v0 = v0.rotated(32)
        v2 &+= v3; v3 = v3.rotated(16); v3 ^= v2
        v0 &+= v3; v3 = v3.rotated(21); v3 ^= v0
        v2 &+= v1; v1 = v1.rotated(17); v1 ^= v2; v2 = v2.rotated(32)
    }
}

private extension UInt64 {
    @inline(__always)
    func rotated(_ n: UInt64) -> UInt64 { self &<< n | self &>> (64 &- n) }
}
