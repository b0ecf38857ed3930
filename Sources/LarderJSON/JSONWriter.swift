#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes compact JSON into a byte buffer that callers reuse between messages.
///
/// Strings are escaped minimally: `"`, `\` and control characters; `/` and
/// non-ASCII text are written as they are.
///
/// The writer owns its storage and cannot be copied: answers are assembled
/// from a dozen small pieces each, and appending to an `Array` costs a
/// uniqueness check and a generic copy per piece, more than the piece
/// itself. Here an append is a capacity check and a copy.
public struct JSONWriter: ~Copyable {
    // Internal but inlinable: the small appends below are inlined into the
    // modules that write answers, where a call would cost as much as the copy.
    @usableFromInline var base: UnsafeMutablePointer<UInt8>
    @usableFromInline var written = 0
    @usableFromInline var allocated: Int

    /// Bytes written so far.
    public var count: Int { written }
    /// Bytes the storage holds before it must grow.
    public var capacity: Int { allocated }

    public init(capacity: Int = 256) {
        allocated = max(capacity, 16)
        base = Self.resize(nil, to: allocated)
    }

    deinit { free(base) }

    /// A copy of what has been written (`count` and `withBytes` read it without one).
    public var copiedBytes: [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }

    public var isEmpty: Bool { count == 0 }

    /// Lends what has been written, without copying it.
    @inlinable
    public func withBytes<R, E: Error>(_ body: (UnsafeBufferPointer<UInt8>) throws(E) -> R) throws(E) -> R {
        try body(UnsafeBufferPointer(start: base, count: count))
    }

    /// Lends the bytes written since `start`.
    public func withBytes<R, E: Error>(from start: Int, _ body: (UnsafeBufferPointer<UInt8>) throws(E) -> R) throws(E) -> R {
        try body(UnsafeBufferPointer(start: base + start, count: count - start))
    }

    /// Empties the buffer, keeping its storage.
    public mutating func reset() { written = 0 }

    /// Forgets what was written after the first `newCount` bytes.
    public mutating func truncate(to newCount: Int) {
        precondition(newCount >= 0 && newCount <= count)
        written = newCount
    }

    @inlinable @inline(__always)
    mutating func reserve(_ n: Int) {
        if capacity &- count < n { grow(toHold: n) }
    }

    /// Doubles the storage, or for a piece larger than that (a large value)
    /// makes room for the piece and as much again as the storage held: the
    /// rest of the message after a value would otherwise grow it once more,
    /// copying the value (a 16 MB value read back peaked at 3.1× its size
    /// rather than 2×).
    @usableFromInline @inline(never)
    mutating func grow(toHold n: Int) {
        let newCapacity = max(capacity * 2, count + n + capacity)
        base = Self.resize(base, to: newCapacity)
        allocated = newCapacity
    }

    /// `realloc`, not a new buffer and a copy: a buffer past glibc's mmap
    /// threshold is a mapping of its own, which `realloc` moves with
    /// mremap(2), copying nothing. A 60 MB answer otherwise had its old and
    /// new buffers resident at once each time it doubled.
    private static func resize(_ buffer: UnsafeMutablePointer<UInt8>?, to capacity: Int) -> UnsafeMutablePointer<UInt8> {
        guard let raw = realloc(buffer, capacity) else { fatalError("out of memory: a buffer of \(capacity) bytes") }
        return raw.bindMemory(to: UInt8.self, capacity: capacity)
    }

    /// Appends one byte (framing, punctuation).
    @inlinable @inline(__always)
    public mutating func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        written &+= 1
    }

    /// Appends bytes that are already valid JSON (or framing) unchanged.
    @inlinable @inline(__always)
    public mutating func writeRaw(_ raw: UnsafeBufferPointer<UInt8>) {
        guard let from = raw.baseAddress else { return }
        reserve(raw.count)
        Self.copy(from, to: base + count, count: raw.count)
        written &+= raw.count
    }

    /// Most pieces are a few bytes long, for which a call to `memcpy` costs
    /// more than the copy: up to 32 bytes are moved as (overlapping) words.
    @inlinable @inline(__always)
    static func copy(_ from: UnsafePointer<UInt8>, to: UnsafeMutablePointer<UInt8>, count n: Int) {
        let s = UnsafeRawPointer(from), d = UnsafeMutableRawPointer(to)
        switch n {
        case 0:
            return
        case 1..<4:
            for k in 0..<n { to[k] = from[k] }
        case 4..<8:
            let head = s.loadUnaligned(as: UInt32.self), tail = s.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self)
            d.storeBytes(of: head, as: UInt32.self)
            d.storeBytes(of: tail, toByteOffset: n - 4, as: UInt32.self)
        case 8...16:
            let head = s.loadUnaligned(as: UInt64.self), tail = s.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
            d.storeBytes(of: head, as: UInt64.self)
            d.storeBytes(of: tail, toByteOffset: n - 8, as: UInt64.self)
        case 17...32:
            let a = s.loadUnaligned(as: UInt64.self), b = s.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
            let c = s.loadUnaligned(fromByteOffset: n - 16, as: UInt64.self)
            let e = s.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
            d.storeBytes(of: a, as: UInt64.self)
            d.storeBytes(of: b, toByteOffset: 8, as: UInt64.self)
            d.storeBytes(of: c, toByteOffset: n - 16, as: UInt64.self)
            d.storeBytes(of: e, toByteOffset: n - 8, as: UInt64.self)
        default:
            to.update(from: from, count: n)
        }
    }

    public mutating func writeRaw(_ raw: [UInt8]) {
        raw.withUnsafeBufferPointer { writeRaw($0) }
    }

    public mutating func writeRaw(_ raw: ArraySlice<UInt8>) {
        raw.withUnsafeBufferPointer { writeRaw($0) }
    }

    @inlinable @inline(__always)
    public mutating func writeASCII(_ text: StaticString) {
        writeRaw(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Lets `body` write at most `maxCount` bytes in place; it returns how many it wrote.
    @inlinable
    public mutating func append(upTo maxCount: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        reserve(maxCount)
        let n = body(base + count)
        precondition(n >= 0 && n <= maxCount)
        written &+= n
    }

    /// An integer's decimal digits.
    public mutating func writeInt(_ value: Int) {
        append(upTo: 20) { out in
            var magnitude = value.magnitude
            var digits = 0
            repeat {
                digits += 1
                magnitude /= 10
            } while magnitude > 0
            let sign = value < 0 ? 1 : 0
            if sign == 1 { out[0] = UInt8(ascii: "-") }
            magnitude = value.magnitude
            var at = sign + digits
            repeat {
                at -= 1
                out[at] = UInt8(truncatingIfNeeded: magnitude % 10) &+ UInt8(ascii: "0")
                magnitude /= 10
            } while magnitude > 0
            return sign + digits
        }
    }

    private mutating func writeUTF8(_ text: String) {
        var text = text
        text.withUTF8 { writeRaw($0) }
    }

    public mutating func write(_ value: JSON) {
        switch value {
        case .null: writeASCII("null")
        case .bool(let b): writeASCII(b ? "true" : "false")
        case .number(let n): writeUTF8(n.literal)
        case .string(let s): writeString(s)
        case .fragment(let f): writeRaw(f.bytes)
        case .array(let a):
            append(UInt8(ascii: "["))
            // By index: iterating would copy each element out (and retain what it holds).
            for k in a.indices {
                if k > 0 { append(UInt8(ascii: ",")) }
                write(a[k])
            }
            append(UInt8(ascii: "]"))
        case .object(let o):
            append(UInt8(ascii: "{"))
            for k in o.members.indices {
                if k > 0 { append(UInt8(ascii: ",")) }
                writeString(o.members[k].key)
                append(UInt8(ascii: ":"))
                write(o.members[k].value)
            }
            append(UInt8(ascii: "}"))
        }
    }

    public mutating func writeString(_ string: String) {
        var string = string
        string.withUTF8 { utf8 in
            append(UInt8(ascii: "\""))
            var runStart = 0
            for k in 0..<utf8.count {
                let b = utf8[k]
                guard b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") else { continue }
                if runStart < k { writeRaw(UnsafeBufferPointer(rebasing: utf8[runStart..<k])) }
                runStart = k + 1
                append(UInt8(ascii: "\\"))
                switch b {
                case UInt8(ascii: "\""): append(UInt8(ascii: "\""))
                case UInt8(ascii: "\\"): append(UInt8(ascii: "\\"))
                case 0x0A: append(UInt8(ascii: "n"))
                case 0x0D: append(UInt8(ascii: "r"))
                case 0x09: append(UInt8(ascii: "t"))
                case 0x08: append(UInt8(ascii: "b"))
                case 0x0C: append(UInt8(ascii: "f"))
                default:
                    let hex: [UInt8] = Array("0123456789abcdef".utf8)
                    writeRaw([UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(b >> 4)], hex[Int(b & 0xF)]])
                }
            }
            if runStart < utf8.count { writeRaw(UnsafeBufferPointer(rebasing: utf8[runStart...])) }
            append(UInt8(ascii: "\""))
        }
    }
}

extension JSON {
    /// Compact UTF-8 encoding.
    public var encoded: [UInt8] {
        var writer = JSONWriter()
        writer.write(self)
        return writer.copiedBytes
    }
}
