#if canImport(Glibc)
import Glibc
#endif
import LarderSystem

/// Drives one child over its pipes with raw `read`/`write`/`poll`.
///
/// Requests are pre-encoded; answers are only split at newlines and checked
/// for a JSON-RPC response prefix with an id followed by `"result"` (an
/// `"error"` or anything else is a problem that stops the run). Nothing is
/// parsed on the measured path.
final class Driver {
    let writeFD: Int32
    let readFD: Int32

    private var buffer: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// Bytes held: `buffer[0..<filled]`; the unfinished line starts at `lineStart`.
    private var filled = 0
    private var lineStart = 0
    private var scanned = 0
    private var blocking = true
    private static let minimumRead = 64 * 1024

    /// Complete lines received so far.
    private(set) var lines = 0
    private(set) var problems = 0
    private(set) var firstProblem: String?
    private var capturing = false
    private var captured: [[UInt8]] = []

    private static let prefixText = Array(#"{"jsonrpc":"2.0","id":"#.utf8)
    private let prefix: UnsafeMutablePointer<UInt8>
    private let prefixCount: Int

    init(writeFD: Int32, readFD: Int32) {
        self.writeFD = writeFD
        self.readFD = readFD
        capacity = 1 << 20
        buffer = .allocate(capacity: capacity)
        prefixCount = Self.prefixText.count
        prefix = .allocate(capacity: prefixCount)
        prefix.initialize(from: Self.prefixText, count: prefixCount)
    }

    deinit {
        buffer.deallocate()
        prefix.deallocate()
    }

    // MARK: - Measured paths

    /// Sends every request of `batch`, never more than `window` unanswered;
    /// returns the nanoseconds from the first write to the last answer.
    func pipelined(_ batch: RequestBatch, window: Int) -> UInt64 {
        setBlocking(false)
        let n = batch.count
        let first = lines
        let target = lines + n
        var sent = 0
        var elapsed: UInt64 = 0
        batch.bytes.withUnsafeBytes { raw in
            batch.ends.withUnsafeBufferPointer { ends in
                let base = raw.baseAddress!
                var fds = [pollfd(fd: readFD, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: writeFD, events: Int16(POLLOUT), revents: 0)]
                let t0 = MonotonicClock.nanoseconds()
                while lines < target {
                    let limit = ends[min(lines - first + window, n) - 1]
                    var progressed = false
                    if sent < limit {
                        let w = write(writeFD, base + sent, limit - sent)
                        if w > 0 {
                            sent += w
                            progressed = true
                        } else if w < 0 && errno != EAGAIN && errno != EINTR {
                            Progress.fail("writing to the child failed: \(Progress.errorText())")
                        }
                    }
                    makeRoom()
                    let r = read(readFD, buffer + filled, capacity - filled)
                    if r > 0 {
                        consume(r)
                        progressed = true
                    } else if r == 0 {
                        Progress.fail("the child closed its output after \(lines - first) of \(n) answers")
                    } else if errno != EAGAIN && errno != EINTR {
                        Progress.fail("reading from the child failed: \(Progress.errorText())")
                    }
                    if !progressed {
                        fds[1].events = sent < limit ? Int16(POLLOUT) : 0
                        _ = poll(&fds, 2, -1)
                    }
                }
                elapsed = MonotonicClock.nanoseconds() - t0
            }
        }
        return elapsed
    }

    /// Sends each request only after the previous answer arrived; fills
    /// `latencies` (nanoseconds, one per request) and returns the total time.
    func strict(_ batch: RequestBatch, latencies: inout [UInt64]) -> UInt64 {
        setBlocking(true)
        let n = batch.count
        if latencies.count != n { latencies = [UInt64](repeating: 0, count: n) }
        var elapsed: UInt64 = 0
        batch.bytes.withUnsafeBytes { raw in
            batch.ends.withUnsafeBufferPointer { ends in
                latencies.withUnsafeMutableBufferPointer { lat in
                    let base = raw.baseAddress!
                    var start = 0
                    let t0 = MonotonicClock.nanoseconds()
                    for k in 0..<n {
                        let t = MonotonicClock.nanoseconds()
                        writeAll(base + start, ends[k] - start)
                        awaitLine()
                        lat[k] = MonotonicClock.nanoseconds() - t
                        start = ends[k]
                    }
                    elapsed = MonotonicClock.nanoseconds() - t0
                }
            }
        }
        return elapsed
    }

    // MARK: - Setup calls

    /// Sends one line and returns the answer line (unchecked: the caller reads it).
    func exchange(_ line: [UInt8]) -> [UInt8] {
        exchange(line, answers: 1)[0]
    }

    /// Sends `requests` in one write and returns their `answers` answer
    /// lines, in order (unchecked). The whole write goes out before any
    /// answer is read: the answers must fit in the pipe unless the last
    /// request is the one whose answer does not.
    func exchange(_ requests: [UInt8], answers: Int) -> [[UInt8]] {
        setBlocking(true)
        capturing = true
        captured = []
        defer {
            capturing = false
            captured = []
        }
        requests.withUnsafeBytes { writeAll($0.baseAddress!, $0.count) }
        awaitLines(answers)
        return captured
    }

    /// Stops the program if any answer since the last call was not a result.
    func requireNoProblems(_ what: String) {
        guard problems > 0 else { return }
        Progress.fail("\(what): \(problems) answers were errors or malformed; the first: \(firstProblem ?? "?")")
    }

    // MARK: - Bytes

    private func awaitLine() { awaitLines(1) }

    private func awaitLines(_ count: Int) {
        let want = lines + count
        while lines < want {
            makeRoom()
            let r = read(readFD, buffer + filled, capacity - filled)
            if r > 0 { consume(r); continue }
            if r < 0 && errno == EINTR { continue }
            Progress.fail(r == 0 ? "the child closed its output" : "reading from the child failed: \(Progress.errorText())")
        }
    }

    private func writeAll(_ p: UnsafeRawPointer, _ count: Int) {
        var done = 0
        while done < count {
            let w = write(writeFD, p + done, count - done)
            if w > 0 { done += w; continue }
            if w < 0 && errno == EINTR { continue }
            Progress.fail("writing to the child failed: \(Progress.errorText())")
        }
    }

    private func setBlocking(_ on: Bool) {
        guard on != blocking else { return }
        for fd in [writeFD, readFD] {
            let flags = fcntl(fd, F_GETFL)
            _ = fcntl(fd, F_SETFL, on ? flags & ~O_NONBLOCK : flags | O_NONBLOCK)
        }
        blocking = on
    }

    /// Keeps at least `minimumRead` bytes free after `filled`.
    @inline(__always)
    private func makeRoom() {
        if lineStart == filled {
            filled = 0
            lineStart = 0
            scanned = 0
        }
        guard capacity - filled < Self.minimumRead else { return }
        if lineStart > 0 {
            let live = filled - lineStart
            memmove(buffer, buffer + lineStart, live)
            filled = live
            scanned -= lineStart
            lineStart = 0
        }
        if capacity - filled < Self.minimumRead {
            let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity * 2)
            grown.update(from: buffer, count: filled)
            buffer.deallocate()
            buffer = grown
            capacity *= 2
        }
    }

    @inline(__always)
    private func consume(_ n: Int) {
        filled += n
        let raw = UnsafeMutableRawPointer(buffer)
        while scanned < filled {
            guard let hit = memchr(buffer + scanned, 0x0A, filled - scanned) else {
                scanned = filled
                return
            }
            let end = raw.distance(to: hit)
            check(lineStart, end)
            lines += 1
            lineStart = end + 1
            scanned = lineStart
        }
    }

    /// `{"jsonrpc":"2.0","id":ID,"result"…`: anything else is a problem.
    @inline(__always)
    private func check(_ start: Int, _ end: Int) {
        if capturing {
            captured.append(Array(UnsafeBufferPointer(start: buffer + start, count: end - start)))
            return
        }
        let p = buffer + start
        let n = end - start
        guard n > prefixCount + 3, memcmp(p, prefix, prefixCount) == 0 else { return problem(start, end) }
        var i = prefixCount
        if p[i] == UInt8(ascii: "\"") {
            i += 1
            while i < n && p[i] != UInt8(ascii: "\"") { i += 1 }
            i += 1
        } else {
            while i < n && (p[i] &- UInt8(ascii: "0") < 10 || p[i] == UInt8(ascii: "-")) { i += 1 }
        }
        guard i + 2 < n, p[i] == UInt8(ascii: ","), p[i + 1] == UInt8(ascii: "\""), p[i + 2] == UInt8(ascii: "r") else {
            return problem(start, end)
        }
    }

    private func problem(_ start: Int, _ end: Int) {
        problems += 1
        if firstProblem == nil {
            firstProblem = String(decoding: UnsafeBufferPointer(start: buffer + start, count: min(end - start, 400)), as: UTF8.self)
        }
    }
}
