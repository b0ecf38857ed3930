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
        /// A message over the limit is skipped. `size` is what was seen of a
        /// line, or the Content-Length of a body (answered from its header).
        case oversized(size: Int)
        /// Content-Length framing that cannot be read: a bad header block, or a
        /// body cut short by the next header. Skipped up to the next
        /// `Content-Length` header line (SPEC §1.2).
        case badFrame(String)
    }

    public let maxMessageBytes: Int
    public private(set) var framing: Framing?

    /// Received bytes live in `storage[0..<count]`; `start..<count` is not yet consumed.
    private var storage: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private var count = 0
    private var start = 0
    /// Where the search in progress resumes: for the next LF (line framing),
    /// the end of a header block or a header line in a body (Content-Length).
    private var scanned = 0
    /// While the rest of an oversized line is dropped: how much of it was seen.
    private var droppedLine: Int?

    /// Where Content-Length framing stands.
    private enum Stage {
        /// At the start of a header block.
        case header
        /// Waiting for the rest of a body of `length` bytes that begins at `start`.
        case body(length: Int)
        /// Skipping bytes up to the next `Content-Length` header line, after
        /// something that could not be read and was answered.
        case resynchronizing
    }
    private var stage = Stage.header
    /// Where the body last returned began, until the next `append` or `read`.
    private var lastBody: Int?

    /// A header block, with the blank line that ends it, may be at most this long.
    private static let maxHeaderBytes = 8192

    private let initialCapacity: Int

    public init(maxMessageBytes: Int, framing: Framing? = nil, initialCapacity: Int = 256 * 1024) {
        self.maxMessageBytes = maxMessageBytes
        self.framing = framing
        self.initialCapacity = initialCapacity
        capacity = initialCapacity
        storage = Self.resize(nil, to: capacity)
    }

    /// A buffer that grew past this size goes back to its first size as soon
    /// as it is empty, at the next read; a smaller one waits for `shrink` at
    /// the client's next pause, since growing it again for each message of a
    /// burst would cost. A client that asks for a large value back at once,
    /// with no pause, otherwise found the 60 MB of its `cache.set` still
    /// resident while the answer needed as much again (a peak of 185 MB
    /// rather than 128 MB).
    static let keptUntilPause = 4 << 20

    /// Returns a buffer that grew for a large message to its first size once
    /// everything in it has been consumed.
    public func shrink() {
        guard capacity > initialCapacity, start == count else { return }
        free(storage)
        capacity = initialCapacity
        storage = Self.resize(nil, to: capacity)
        start = 0
        count = 0
        scanned = 0
        lastBody = nil
    }

    /// Moves what follows the messages consumed so far into a buffer of the
    /// first size (or of what it needs), if the buffer grew past
    /// `keptUntilPause`: called once a large message has been handled. Its
    /// bytes were otherwise held until the next read, while the messages
    /// read with it were answered: a 60 MB `cache.set` followed in the same
    /// write by a `cache.get` of the value held the request, the stored
    /// value and the answer at once. Invalidates the ranges of messages
    /// already returned.
    public func releaseConsumed() {
        guard capacity > Self.keptUntilPause, start > 0 else { return }
        let live = count - start
        var newCapacity = initialCapacity
        while newCapacity < live + Self.chunk { newCapacity *= 2 }
        let fresh = Self.resize(nil, to: newCapacity)
        if live > 0 { memcpy(fresh, storage + start, live) }
        free(storage)
        storage = fresh
        capacity = newCapacity
        scanned -= start
        count = live
        start = 0
        lastBody = nil
    }

    deinit { free(storage) }

    /// The bytes of a `.message` range; valid until the next `append`, `read` or `releaseConsumed`.
    public func bytes(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: storage + range.lowerBound, count: range.count)
    }

    /// True when every received byte has been consumed.
    public var isEmpty: Bool { start == count && droppedLine == nil }

    /// Appends bytes (for tests and for input that does not come from a descriptor).
    public func append(_ bytes: some Collection<UInt8>) {
        makeRoom(bytes.count)
        for b in bytes { storage[count] = b; count += 1 }
    }

    /// Reads up to `chunk` bytes from `fd` into the buffer. Returns what `read(2)` returned.
    /// How much one `read` asks for.
    public static let chunk = 64 * 1024

    public func read(from fd: Int32, chunk: Int = FrameDecoder.chunk) -> Int {
        if capacity > Self.keptUntilPause { shrink() }
        makeRoom(chunk)
        let n = Glibc.read(fd, storage + count, chunk)
        if n > 0 { count += n }
        return n
    }

    /// Ensures `extra` bytes fit after `count`, first by dropping consumed bytes, then by growing.
    private func makeRoom(_ extra: Int) {
        lastBody = nil
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
        storage = Self.resize(storage, to: newCapacity)
        capacity = newCapacity
    }

    /// `realloc`, not a new buffer and a copy: past glibc's mmap threshold
    /// the buffer is a mapping of its own, which `realloc` moves with
    /// mremap(2), copying nothing, and what a doubling adds is only address
    /// space until bytes arrive in it. A 60 MB message had 32 MB and 64 MB
    /// buffers resident at once, one copied into the other, as it grew.
    private static func resize(_ buffer: UnsafeMutablePointer<UInt8>?, to capacity: Int) -> UnsafeMutablePointer<UInt8> {
        guard let raw = realloc(buffer, capacity) else { fatalError("out of memory: an input buffer of \(capacity) bytes") }
        return raw.bindMemory(to: UInt8.self, capacity: capacity)
    }

    /// The next event, or nil when more bytes are needed.
    public func next() -> Event? {
        while true {
            if droppedLine != nil {
                return dropLine()
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
                    droppedLine = count - start
                    start = count
                    scanned = start
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
        if let seen = droppedLine {
            droppedLine = nil
            start = count
            return .oversized(size: seen)
        }
        guard framing == .lines, start < count else { return nil }
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
        switch stage {
        case .header:
            // Stray line breaks between messages say nothing.
            while start < count, storage[start] == 0x0A || storage[start] == 0x0D { start += 1 }
            guard start < count else { return .needMore }
            switch readHeaderBlock() {
            case .incomplete: return .needMore
            case .bad(let why, let resumeAt):
                resynchronize(at: resumeAt)
                return .event(.badFrame(why))
            case .read(let length, let body):
                return beginBody(length: length, at: body)
            }
        case .body(let length):
            if count - start >= length {
                let body = start..<(start + length)
                stage = .header
                lastBody = body.lowerBound
                start = body.upperBound
                return .event(.message(body))
            }
            // A valid JSON body never holds a Content-Length header line (see
            // `findContentLengthLine`), so one here means the body was shorter
            // than declared and the next message has begun: stop waiting.
            switch findContentLengthLine(from: max(start, scanned)) {
            case .found(let at):
                let received = at - start
                resynchronize(at: at)
                return .event(.badFrame("the body ended after \(received) of its \(length) bytes, where the next Content-Length header began"))
            case .incomplete(let at):
                scanned = at
            case .none(let keepFrom):
                scanned = keepFrom
            }
            return .needMore
        case .resynchronizing:
            switch findContentLengthLine(from: start) {
            case .none(let keepFrom):
                start = keepFrom
                return .needMore
            case .incomplete(let at):
                start = at
                return .needMore
            case .found(let at):
                start = at
                switch readHeaderBlock() {
                case .incomplete: return .needMore
                case .bad(_, let resumeAt):
                    // Part of what is being skipped: its error was already answered.
                    resynchronize(at: resumeAt)
                    return .retry
                case .read(let length, let body):
                    stage = .header
                    return beginBody(length: length, at: body)
                }
            }
        }
    }

    /// Starts on a body whose header block was read.
    private func beginBody(length: Int, at body: Int) -> Step {
        guard length <= maxMessageBytes else {
            // Not buffered: skipped like garbage up to the next header line,
            // which a valid body cannot hold, so a wrong length costs nothing more.
            resynchronize(at: body)
            return .event(.oversized(size: length))
        }
        stage = .body(length: length)
        start = body
        scanned = body
        return .retry
    }

    /// Skips to the next `Content-Length` header line at or after `position`.
    private func resynchronize(at position: Int) {
        stage = .resynchronizing
        start = position
        scanned = position
    }

    /// Tells the decoder that the body of the message it last returned is not
    /// JSON. In Content-Length framing its declared length was most likely
    /// wrong, and a body too long for its bytes holds the start of the next
    /// message: the decoder goes back to the body's first byte and skips from
    /// there to the next `Content-Length` header line. Call it before the next
    /// `append` or `read`; in line framing it does nothing.
    public func lastBodyIsNotJSON() {
        guard let body = lastBody else { return }
        lastBody = nil
        resynchronize(at: body)
    }

    private enum HeaderBlock {
        case incomplete
        case read(length: Int, body: Int)
        /// Answered with `why`; the search for a header line resumes at `resumeAt`.
        case bad(String, resumeAt: Int)
    }

    /// Reads the header block at `start`.
    ///
    /// The block is read from its last `Content-Length` header. Whole header
    /// lines may come before it (`Content-Type` often does), but anything
    /// else there, another `Content-Length` included, is what is left of a
    /// message that went wrong: it is skipped, with one error, and the block
    /// read from that header — so a stray byte or a header block cut short
    /// costs the message after it nothing.
    private func readHeaderBlock() -> HeaderBlock {
        let limit = min(count, start + Self.maxHeaderBytes)
        guard let end = terminator(from: max(start, scanned), upTo: limit) else {
            if count - start >= Self.maxHeaderBytes {
                return .bad("header block longer than \(Self.maxHeaderBytes) bytes", resumeAt: start + 1)
            }
            scanned = max(start, count - 3)
            return .incomplete
        }
        var names = 0
        var name = 0
        var colon = 0
        var k = start
        while let c = index(of: 0x3A, from: k, before: end) {
            if let n = contentLengthName(beforeColon: c, notBefore: start) {
                names += 1
                name = n
                colon = c
            }
            k = c + 1
        }
        guard names > 0 else {
            if let line = lineWithoutColon(start..<end) {
                return .bad("header line without a colon: \(text(line))", resumeAt: start + 1)
            }
            return .bad("Content-Length header is required", resumeAt: start + 1)
        }
        if names > 1 || !areHeaderLines(start..<name) {
            return .bad("unexpected bytes before Content-Length: \(text(start..<name))", resumeAt: name)
        }
        guard case .number(let length) = contentLength(afterColon: colon) else {
            return .bad("Content-Length is not a number", resumeAt: name + 1)
        }
        let lineEnd = lineBreak(from: colon, before: end) ?? end
        if let line = lineWithoutColon(lineEnd..<end) {
            return .bad("header line without a colon: \(text(line))", resumeAt: name + 1)
        }
        return .read(length: length, body: end + 4)
    }

    private enum LineSearch {
        /// A whole `Content-Length` line with a number begins here.
        case found(Int)
        /// One may begin here; more bytes will tell.
        case incomplete(Int)
        /// None begins before `keepFrom`.
        case none(keepFrom: Int)
    }

    /// Finds the first `Content-Length` header line with a number, ended by
    /// CR LF, that begins at or after `position` (the name anywhere, not only
    /// at the start of a line: a stray byte may come just before it).
    ///
    /// Such a line never occurs in a valid JSON text: outside strings JSON
    /// has no letters but those of `true`, `false` and `null`, and inside a
    /// string the CR must be escaped — and nothing between the name and the
    /// CR (spaces, tabs, digits) can close the string first.
    private func findContentLengthLine(from position: Int) -> LineSearch {
        var k = position
        while let c = index(of: 0x3A, from: k, before: count) {
            if let name = contentLengthName(beforeColon: c, notBefore: position) {
                switch contentLength(afterColon: c) {
                case .number: return .found(name)
                case .incomplete where count - name <= Self.maxHeaderBytes: return .incomplete(name)
                case .incomplete, .invalid: break
                }
            }
            k = c + 1
        }
        // The name of a line whose colon has not arrived may end the buffer,
        // whole or in part, or be followed by nothing but spaces so far.
        var end = count
        while end > position && count - end < Self.maxHeaderBytes && isSpace(storage[end - 1]) { end -= 1 }
        if end == count { return .none(keepFrom: max(position, count - Self.name.count)) }
        return .none(keepFrom: contentLengthName(endingAt: end, notBefore: position) ?? count)
    }

    private static let name = Array("content-length".utf8)

    /// Where the name `Content-Length` (any case) begins, if it comes before
    /// the colon at `colon`, spaces and tabs aside.
    private func contentLengthName(beforeColon colon: Int, notBefore lowest: Int) -> Int? {
        var end = colon
        while end > lowest && isSpace(storage[end - 1]) { end -= 1 }
        return contentLengthName(endingAt: end, notBefore: lowest)
    }

    /// Where the name `Content-Length` (any case) begins, if it ends at `end`.
    private func contentLengthName(endingAt end: Int, notBefore lowest: Int) -> Int? {
        let begin = end - Self.name.count
        guard begin >= lowest else { return nil }
        for j in 0..<Self.name.count where lower(storage[begin + j]) != Self.name[j] { return nil }
        return begin
    }

    private enum Length { case number(Int), incomplete, invalid }

    /// The value after a `Content-Length` colon: decimal digits, spaces and
    /// tabs around them, then CR LF.
    private func contentLength(afterColon colon: Int) -> Length {
        var k = colon + 1
        while k < count && isSpace(storage[k]) { k += 1 }
        var value = 0
        var digits = 0
        while k < count, storage[k] >= 0x30 && storage[k] <= 0x39 {
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(Int(storage[k] - 0x30))
            if o1 || o2 { return .invalid }
            value = sum
            digits += 1
            k += 1
        }
        while k < count && isSpace(storage[k]) { k += 1 }
        guard k < count else { return .incomplete }
        guard storage[k] == 0x0D, digits > 0 else { return .invalid }
        guard k + 1 < count else { return .incomplete }
        return storage[k + 1] == 0x0A ? .number(value) : .invalid
    }

    /// Whether `range` is whole header lines, each with a colon, and then
    /// nothing but spaces and tabs (before the name of the next header).
    private func areHeaderLines(_ range: Range<Int>) -> Bool {
        var lineStart = range.lowerBound
        while let lineEnd = lineBreak(from: lineStart, before: range.upperBound) {
            if index(of: 0x3A, from: lineStart, before: lineEnd) == nil { return false }
            lineStart = lineEnd + 2
        }
        for k in lineStart..<range.upperBound where !isSpace(storage[k]) { return false }
        return true
    }

    /// The first line of `range` (lines end at CR LF) that has no colon.
    private func lineWithoutColon(_ range: Range<Int>) -> Range<Int>? {
        var lineStart = range.lowerBound
        while lineStart < range.upperBound {
            let lineEnd = lineBreak(from: lineStart, before: range.upperBound) ?? range.upperBound
            if lineEnd > lineStart && index(of: 0x3A, from: lineStart, before: lineEnd) == nil { return lineStart..<lineEnd }
            lineStart = lineEnd + 2
        }
        return nil
    }

    /// Header text as an error may repeat it.
    private func text(_ range: Range<Int>) -> String {
        String(decoding: bytes(range), as: UTF8.self).echoed
    }

    @inline(__always)
    private func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 }

    private func index(of byte: UInt8, from: Int, before end: Int) -> Int? {
        guard from < end, let hit = memchr(storage + from, Int32(byte), end - from) else { return nil }
        return storage.distance(to: hit.assumingMemoryBound(to: UInt8.self))
    }

    /// The first CR LF that begins at or after `from` and ends by `end`.
    private func lineBreak(from: Int, before end: Int) -> Int? {
        var k = from
        while let cr = index(of: 0x0D, from: k, before: end - 1) {
            if storage[cr + 1] == 0x0A { return cr }
            k = cr + 1
        }
        return nil
    }

    /// The first CR LF CR LF that begins at or after `from` and ends by `limit`.
    private func terminator(from: Int, upTo limit: Int) -> Int? {
        var k = from
        while let cr = index(of: 0x0D, from: k, before: limit - 3) {
            if storage[cr + 1] == 0x0A && storage[cr + 2] == 0x0D && storage[cr + 3] == 0x0A { return cr }
            k = cr + 1
        }
        return nil
    }

    /// Drops buffered bytes of an oversized line; returns its event once its LF has gone by.
    private func dropLine() -> Event? {
        let seen = droppedLine ?? 0
        guard let newline = indexOfNewline(from: start) else {
            droppedLine = seen + count - start
            start = count
            scanned = start
            return nil
        }
        droppedLine = nil
        let size = seen + newline - start
        start = newline + 1
        scanned = start
        return .oversized(size: size)
    }
}
