#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Splits incoming bytes into message bodies, never holding more than the
/// message size limit (plus one read) in memory.
public final class FrameDecoder {
    public enum Event: Equatable {
        /// A complete message body: pass the range to `bytes(_:)`.
        case message(Range<Int>)
        /// A message over the limit was skipped. `size` is what was seen of it.
        case oversized(size: Int)
        /// A Content-Length header block that cannot be read; it was skipped.
        case badHeader(String)
    }

    public let maxMessageBytes: Int
    public private(set) var framing: Framing?

    /// Received bytes live in `storage[0..<count]`; `start..<count` is not yet consumed.
    private var storage: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private var count = 0
    private var start = 0
    /// Where the next newline search begins (line framing).
    private var scanned = 0
    /// Bytes of an oversized message still to drop.
    private var discarding: Discard?

    private enum Discard {
        case untilNewline(seen: Int)
        case bytes(remaining: Int, size: Int)
    }

    private static let maxHeaderBytes = 8192

    private let initialCapacity: Int

    public init(maxMessageBytes: Int, framing: Framing? = nil, initialCapacity: Int = 256 * 1024) {
        self.maxMessageBytes = maxMessageBytes
        self.framing = framing
        self.initialCapacity = initialCapacity
        capacity = initialCapacity
        storage = .allocate(capacity: capacity)
    }

    /// Returns a buffer that grew for a large message to its first size once
    /// everything in it has been consumed.
    public func shrink() {
        guard capacity > initialCapacity, start == count else { return }
        storage.deallocate()
        capacity = initialCapacity
        storage = .allocate(capacity: capacity)
        start = 0
        count = 0
        scanned = 0
    }

    deinit { storage.deallocate() }

    /// The bytes of a `.message` range; valid until the next `append` or `read`.
    public func bytes(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: storage + range.lowerBound, count: range.count)
    }

    /// True when every received byte has been consumed.
    public var isEmpty: Bool { start == count && discarding == nil }

    /// Appends bytes (for tests and for input that does not come from a descriptor).
    public func append(_ bytes: some Collection<UInt8>) {
        makeRoom(bytes.count)
        for b in bytes { storage[count] = b; count += 1 }
    }

    /// Reads up to `chunk` bytes from `fd` into the buffer. Returns what `read(2)` returned.
    /// How much one `read` asks for.
    public static let chunk = 64 * 1024

    public func read(from fd: Int32, chunk: Int = FrameDecoder.chunk) -> Int {
        makeRoom(chunk)
        let n = Glibc.read(fd, storage + count, chunk)
        if n > 0 { count += n }
        return n
    }

    /// Ensures `extra` bytes fit after `count`, first by dropping consumed bytes, then by growing.
    private func makeRoom(_ extra: Int) {
        if start > 0 && (start == count || count + extra > capacity) {
            let live = count - start
            if live > 0 { memmove(storage, storage + start, live) }
            scanned -= start
            count = live
            start = 0
        }
        guard count + extra > capacity else { return }
        var newCapacity = capacity * 2
        while newCapacity < count + extra { newCapacity *= 2 }
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        grown.update(from: storage, count: count)
        storage.deallocate()
        storage = grown
        capacity = newCapacity
    }

    /// The next event, or nil when more bytes are needed.
    public func next() -> Event? {
        while true {
            if let d = discarding {
                guard let done = drop(d) else { return nil }
                return done
            }
            if framing == nil {
                guard decideFraming() else { return nil }
            }
            switch framing! {
            case .lines:
                return nextLine()
            case .contentLength:
                let result = nextContentLength()
                if case .retry = result { continue }
                if case .event(let e) = result { return e }
                return nil
            }
        }
    }

    /// True once the framing is known.
    private func decideFraming() -> Bool {
        // Leading whitespace says nothing; skip it.
        while start < count, [0x20, 0x09, 0x0A, 0x0D].contains(storage[start]) { start += 1 }
        scanned = max(scanned, start)
        let marker = Array("content-length:".utf8)
        let available = count - start
        let n = min(available, marker.count)
        guard n > 0 else { return false }
        for k in 0..<n where lower(storage[start + k]) != marker[k] {
            framing = .lines
            return true
        }
        if n == marker.count { framing = .contentLength; return true }
        return false
    }

    @inline(__always)
    private func lower(_ b: UInt8) -> UInt8 { (b >= 0x41 && b <= 0x5A) ? b | 0x20 : b }

    private func nextLine() -> Event? {
        while true {
            let found = indexOfNewline(from: scanned)
            guard let newline = found else {
                scanned = count
                if count - start > maxMessageBytes {
                    let seen = count - start
                    start = count
                    scanned = start
                    discarding = .untilNewline(seen: seen)
                    if let e = drop(discarding!) { return e }
                }
                return nil
            }
            let lineStart = start
            var lineEnd = newline
            start = newline + 1
            scanned = start
            if lineEnd > lineStart && storage[lineEnd - 1] == 0x0D { lineEnd -= 1 }
            if lineEnd - lineStart > maxMessageBytes { return .oversized(size: lineEnd - lineStart) }
            if isBlank(lineStart..<lineEnd) { continue }
            return .message(lineStart..<lineEnd)
        }
    }

    /// At the end of input, a last line that lacks its LF still counts.
    public func endOfInput() -> Event? {
        if case .untilNewline(let seen)? = discarding {
            discarding = nil
            start = count
            return .oversized(size: seen)
        }
        guard framing == .lines, discarding == nil, start < count else { return nil }
        var end = count
        if storage[end - 1] == 0x0D { end -= 1 }
        let range = start..<end
        start = count
        scanned = count
        if range.count > maxMessageBytes { return .oversized(size: range.count) }
        return isBlank(range) ? nil : .message(range)
    }

    private func indexOfNewline(from: Int) -> Int? {
        guard from < count, let hit = memchr(storage + from, 0x0A, count - from) else { return nil }
        return storage.distance(to: hit.assumingMemoryBound(to: UInt8.self))
    }

    private func isBlank(_ range: Range<Int>) -> Bool {
        for k in range where ![0x20, 0x09, 0x0D].contains(storage[k]) { return false }
        return true
    }

    private enum Step { case event(Event), needMore, retry }

    private func nextContentLength() -> Step {
        // Skip stray line breaks between messages.
        while start < count, storage[start] == 0x0A || storage[start] == 0x0D { start += 1 }
        guard let headerEnd = find([0x0D, 0x0A, 0x0D, 0x0A], from: start) else {
            if count - start > Self.maxHeaderBytes {
                start = count
                return .event(.badHeader("header block longer than \(Self.maxHeaderBytes) bytes"))
            }
            return .needMore
        }
        let header = String(decoding: bytes(start..<headerEnd), as: UTF8.self)
        let bodyStart = headerEnd + 4
        var length: Int?
        for line in header.split(separator: "\r\n", omittingEmptySubsequences: true) {
            guard let colon = line.firstIndex(of: ":") else {
                resynchronize(after: bodyStart)
                return .event(.badHeader("header line without a colon: \(line.prefix(80))"))
            }
            let name = line[..<colon].trimmingSpaces.lowercased()
            if name == "content-length" {
                length = Int(line[line.index(after: colon)...].trimmingSpaces)
                if length == nil || length! < 0 {
                    resynchronize(after: bodyStart)
                    return .event(.badHeader("Content-Length is not a number"))
                }
            }
        }
        guard let length else {
            resynchronize(after: bodyStart)
            return .event(.badHeader("Content-Length header is required"))
        }
        if length > maxMessageBytes {
            start = bodyStart
            discarding = .bytes(remaining: length, size: length)
            return .retry
        }
        guard count - bodyStart >= length else { return .needMore }
        start = bodyStart + length
        return .event(.message(bodyStart..<(bodyStart + length)))
    }

    /// After a header block that cannot be read, the body length is unknown:
    /// skip to the next `Content-Length:` so one bad message does not garble the rest.
    private func resynchronize(after position: Int) {
        let marker = Array("content-length:".utf8)
        var k = position
        while k + marker.count <= count {
            var hit = true
            for j in 0..<marker.count where lower(storage[k + j]) != marker[j] { hit = false; break }
            if hit { start = k; return }
            k += 1
        }
        // Keep a tail that may be the start of the next marker.
        start = max(position, count - marker.count + 1)
    }

    private func find(_ needle: [UInt8], from: Int) -> Int? {
        guard count - from >= needle.count else { return nil }
        var k = from
        while k + needle.count <= count {
            if storage[k] == needle[0] && storage[k + 1] == needle[1] && storage[k + 2] == needle[2] && storage[k + 3] == needle[3] {
                return k
            }
            k += 1
        }
        return nil
    }

    /// Drops buffered bytes of an oversized message; returns its event once it has all gone by.
    private func drop(_ d: Discard) -> Event? {
        switch d {
        case .untilNewline(let seen):
            let found = indexOfNewline(from: start)
            guard let newline = found else {
                discarding = .untilNewline(seen: seen + count - start)
                start = count
                scanned = start
                return nil
            }
            discarding = nil
            let size = seen + newline - start
            start = newline + 1
            scanned = start
            return .oversized(size: size)
        case .bytes(let remaining, let size):
            let available = count - start
            if available < remaining {
                discarding = .bytes(remaining: remaining - available, size: size)
                start = count
                return nil
            }
            discarding = nil
            start += remaining
            return .oversized(size: size)
        }
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var s = self
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return s
    }
}
