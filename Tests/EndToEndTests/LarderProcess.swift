#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import LarderJSON
import LarderSystem
import XCTest

/// A running `larder` executable driven through its stdin, stdout and stderr.
///
/// Every read has a deadline (poll(2)), so a test can fail but never hang;
/// stderr is drained on a background thread so a chatty server never blocks.
/// A process still running when this object goes away is killed with SIGKILL.
final class LarderProcess {
    private let process: Subprocess
    var pid: pid_t { process.pid }
    let arguments: [String]
    /// Our ends of the pipes to and from the child.
    var pipeDescriptors: (toChild: Int32, fromChild: Int32) { (process.inputDescriptor, process.outputDescriptor) }
    private let stderr: StreamCollector
    private var stdoutBuffer: [UInt8] = []
    private var stdoutClosed = false

    /// The default read timeout, in seconds.
    static let defaultTimeout: Double = 10

    // MARK: - Locating the executable

    /// `$LARDER_BIN`, else `larder` beside the test bundle, else `.build/debug/larder` under the package.
    static let executablePath: String = {
        if let explicit = ProcessInfo.processInfo.environment["LARDER_BIN"], !explicit.isEmpty { return explicit }
        var candidates: [String] = []
        // The test bundle (on Linux, the xctest executable) sits in the build products directory.
        for bundle in [Bundle.main] + Bundle.allBundles {
            if let exe = bundle.executableURL { candidates.append(exe.deletingLastPathComponent().appendingPathComponent("larder").path) }
            candidates.append(bundle.bundleURL.deletingLastPathComponent().appendingPathComponent("larder").path)
        }
        // Tests/EndToEndTests/LarderProcess.swift → the package root.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(root.appendingPathComponent(".build/debug/larder").path)
        return candidates.first { access($0, X_OK) == 0 } ?? candidates.last!
    }()

    // MARK: - Starting

    /// Starts `larder` with `arguments`; `environment` entries are added to (or replace) the test's own.
    /// With `terminalInput` its stdin is a pseudo-terminal, as for a person typing, instead of a pipe.
    /// A `launcher` (`ip netns exec NAME`, say) runs larder: it must exec it, so that the process is larder's.
    init(_ arguments: [String], environment: [String: String] = [:], terminalInput: Bool = false, launcher: [String] = []) throws {
        // A write to a server that died must fail with EPIPE, not kill the test runner.
        signal(SIGPIPE, SIG_IGN)
        self.arguments = arguments

        let environment = environment.merging(ProcessInfo.processInfo.environment) { ours, _ in ours }
        // larder starts with SIGPIPE's default action, as from a shell, not with the SIG_IGN set above.
        let argv = launcher + [Self.executablePath] + arguments
        process = try Subprocess(argv[0], arguments: Array(argv.dropFirst()),
                                 environment: environment, input: terminalInput ? .terminal : .pipe,
                                 error: .pipe, defaultSignals: [SIGPIPE])
        stderr = StreamCollector(fd: process.takeErrorDescriptor())
    }

    deinit {
        process.kill()
        process.wait()
        process.closeInput()
        process.closeOutput()
        // The collector closes stderr when it sees its end (the child is gone now).
        _ = stderr.waitForEnd(timeout: 5)
    }

    // MARK: - stdin

    /// Writes bytes to the server's stdin; false when it cannot take them (it exited, or stdin is closed).
    @discardableResult
    func send(bytes: [UInt8]) -> Bool {
        process.write(bytes)
    }

    /// Writes `text` and a newline.
    @discardableResult
    func send(_ text: String) -> Bool { send(bytes: Array((text + "\n").utf8)) }

    /// Writes one JSON value as a line.
    @discardableResult
    func send(json: JSON) -> Bool { send(json.description) }

    /// Writes one message with LSP Content-Length framing.
    @discardableResult
    func sendFramed(_ body: String) -> Bool {
        send(bytes: Array("Content-Length: \(body.utf8.count)\r\n\r\n\(body)".utf8))
    }

    /// Writes `prefix`, then `fillerCount` copies of `filler` in 1 MB chunks,
    /// then `suffix`, on a background thread, so the test can read responses
    /// meanwhile. Call `wait` on the result before closing stdin.
    func sendInBackground(prefix: [UInt8], filler: UInt8, fillerCount: Int, suffix: [UInt8]) -> BackgroundWrite {
        let job = BackgroundWrite()
        let fd = process.inputDescriptor
        Thread.detachNewThread {
            var ok = prefix.withUnsafeBytes { Subprocess.writeAll(fd, $0) }
            let chunk = [UInt8](repeating: filler, count: 1 << 20)
            var left = fillerCount
            while ok && left > 0 {
                let n = min(left, chunk.count)
                ok = chunk.withUnsafeBytes { Subprocess.writeAll(fd, UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
                left -= n
            }
            if ok { ok = suffix.withUnsafeBytes { Subprocess.writeAll(fd, $0) } }
            job.finish(ok)
        }
        return job
    }

    /// Stops reading the server's stdout for good: its next write fails with EPIPE.
    func closeStdout() {
        guard !stdoutClosed else { return }
        process.closeOutput()
        stdoutClosed = true
        stdoutBuffer = []
    }

    /// Closes the server's stdin: end of input.
    func closeStdin() {
        process.closeInput()
    }

    // MARK: - stdout

    /// The next line of stdout without its newline, or nil at a timeout or the end of output.
    func readLine(timeout: Double = defaultTimeout) -> [UInt8]? {
        let deadline = MonotonicClock.seconds() + timeout
        // Only what arrived since the last look is searched: a line of many
        // megabytes comes in thousands of reads.
        var searched = 0
        while true {
            if let newline = stdoutBuffer[searched...].firstIndex(of: 0x0A) {
                let line = Array(stdoutBuffer[..<newline])
                stdoutBuffer.removeSubrange(...newline)
                return line
            }
            searched = stdoutBuffer.count
            guard fill(until: deadline) else { return nil }
        }
    }

    /// The next stdout line parsed as JSON; nil (and a test failure) at a timeout or when it is not JSON.
    func readMessage(timeout: Double = defaultTimeout, file: StaticString = #filePath, line: UInt = #line) -> JSON? {
        guard let bytes = readLine(timeout: timeout) else {
            XCTFail("no message from larder within \(timeout) s; stderr: \(stderrText)", file: file, line: line)
            return nil
        }
        do {
            return try JSONParser.parse(bytes)
        } catch {
            XCTFail("larder wrote a line that is not JSON (\(error)): \(String(decoding: bytes, as: UTF8.self))",
                    file: file, line: line)
            return nil
        }
    }

    /// The next Content-Length framed message; nil (and a test failure) at a timeout or a bad frame.
    func readFramedMessage(timeout: Double = defaultTimeout, file: StaticString = #filePath, line: UInt = #line) -> JSON? {
        guard let body = readFramedBody(timeout: timeout, file: file, line: line) else { return nil }
        do {
            return try JSONParser.parse(body)
        } catch {
            XCTFail("framed body is not JSON: \(String(decoding: body, as: UTF8.self))", file: file, line: line)
            return nil
        }
    }

    /// The body of the next Content-Length framed message, unparsed; nil (and
    /// a test failure) at a timeout or a bad frame.
    func readFramedBody(timeout: Double = defaultTimeout, file: StaticString = #filePath, line: UInt = #line) -> [UInt8]? {
        let deadline = MonotonicClock.seconds() + timeout
        let separator: [UInt8] = [13, 10, 13, 10]
        while true {
            if let end = Self.find(separator, in: stdoutBuffer) {
                let header = String(decoding: stdoutBuffer[..<end], as: UTF8.self)
                let prefix = "Content-Length: "
                guard header.hasPrefix(prefix), let length = Int(header.dropFirst(prefix.count)) else {
                    XCTFail("bad header from larder: \(header)", file: file, line: line)
                    return nil
                }
                let bodyStart = end + 4
                while stdoutBuffer.count < bodyStart + length {
                    guard fill(until: deadline) else {
                        XCTFail("short body from larder", file: file, line: line)
                        return nil
                    }
                }
                let body = Array(stdoutBuffer[bodyStart..<(bodyStart + length)])
                stdoutBuffer.removeSubrange(..<(bodyStart + length))
                return body
            }
            guard fill(until: deadline) else {
                XCTFail("no framed message within \(timeout) s; got \(String(decoding: stdoutBuffer, as: UTF8.self))",
                        file: file, line: line)
                return nil
            }
        }
    }

    /// Content-Length framed messages up to and including the response whose
    /// id is `id`; the last element is that response.
    func readFramedUntilResponse(id: JSON, timeout: Double = defaultTimeout, file: StaticString = #filePath, line: UInt = #line) -> [JSON] {
        let deadline = MonotonicClock.seconds() + timeout
        var seen: [JSON] = []
        while true {
            guard let m = readFramedMessage(timeout: max(0, deadline - MonotonicClock.seconds()), file: file, line: line) else { return seen }
            seen.append(m)
            if m["id"] == id && m["method"] == nil { return seen }
        }
    }

    /// Messages up to and including the response whose id is `id`; the last element is that response.
    func readUntilResponse(id: JSON, timeout: Double = defaultTimeout, file: StaticString = #filePath, line: UInt = #line) -> [JSON] {
        let deadline = MonotonicClock.seconds() + timeout
        var seen: [JSON] = []
        while true {
            guard let m = readMessage(timeout: max(0, deadline - MonotonicClock.seconds()), file: file, line: line) else { return seen }
            seen.append(m)
            if m["id"] == id && m["method"] == nil { return seen }
        }
    }

    /// Sends a request and returns its response (messages in between are dropped).
    func request(_ method: String, params: JSON? = nil, id: JSON = 1, timeout: Double = defaultTimeout,
                 file: StaticString = #filePath, line: UInt = #line) -> JSON? {
        var o: JSONObject = ["jsonrpc": "2.0", "id": id, "method": .string(method)]
        if let params { o["params"] = params }
        guard send(json: .object(o)) else {
            XCTFail("cannot write to larder (it has exited?); stderr: \(stderrAtEnd(timeout: 5))", file: file, line: line)
            return nil
        }
        let messages = readUntilResponse(id: id, timeout: timeout, file: file, line: line)
        guard let last = messages.last, last["id"] == id else { return nil }
        return last
    }

    /// Sends a notification.
    @discardableResult
    func notify(_ method: String, params: JSON? = nil) -> Bool {
        var o: JSONObject = ["jsonrpc": "2.0", "method": .string(method)]
        if let params { o["params"] = params }
        return send(json: .object(o))
    }

    /// Everything left on stdout until the server closes it.
    func readToEnd(timeout: Double = defaultTimeout) -> [UInt8]? {
        let deadline = MonotonicClock.seconds() + timeout
        while !stdoutClosed {
            guard fill(until: deadline) else { return stdoutClosed ? takeBuffer() : nil }
        }
        return takeBuffer()
    }

    /// True when stdout ends (no more bytes) before `timeout`; pending bytes are kept.
    func stdoutEnds(timeout: Double = defaultTimeout) -> Bool {
        let deadline = MonotonicClock.seconds() + timeout
        while !stdoutClosed {
            guard fill(until: deadline) else { return stdoutClosed }
        }
        return true
    }

    private func takeBuffer() -> [UInt8] {
        defer { stdoutBuffer = [] }
        return stdoutBuffer
    }

    /// Reads what stdout has before the deadline into the buffer; false at the deadline or the end.
    private func fill(until deadline: Double) -> Bool {
        guard !stdoutClosed else { return false }
        while true {
            let left = deadline - MonotonicClock.seconds()
            guard left > 0 else { return false }
            switch process.readOutput(appendingTo: &stdoutBuffer, timeoutMilliseconds: Int32(min(left * 1000, 1_000_000).rounded(.up))) {
            case .bytes: return true
            case .timedOut: continue
            case .end:
                stdoutClosed = true
                return false
            }
        }
    }

    // MARK: - stderr

    /// What the server wrote to stderr so far.
    var stderrText: String { String(decoding: stderr.bytes, as: UTF8.self) }

    /// stderr once the server has closed it (after it exited), or what there is at the timeout.
    func stderrAtEnd(timeout: Double = defaultTimeout) -> String {
        _ = stderr.waitForEnd(timeout: timeout)
        return stderrText
    }

    // MARK: - Ending

    /// Sends `signal` to the server (SIGKILL by default).
    func kill(_ signal: Int32 = SIGKILL) {
        process.kill(signal)
    }

    /// How the server ended: its exit code, or 128 + the signal that killed it.
    /// Nil when it is still running at the timeout.
    func waitForExit(timeout: Double = defaultTimeout) -> Int32? {
        process.wait(timeoutMilliseconds: Int((timeout * 1000).rounded(.up)))?.code
    }

    /// Whether the server is still running.
    var isRunning: Bool { process.wait(timeoutMilliseconds: 0) == nil }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for k in 0...(haystack.count - needle.count) where haystack[k..<(k + needle.count)].elementsEqual(needle) {
            return k
        }
        return nil
    }
}

/// Drains one descriptor on a background thread until its end.
final class StreamCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var collected: [UInt8] = []
    private let ended = DispatchSemaphore(value: 0)
    private var isEnded = false

    init(fd: Int32) {
        Thread.detachNewThread { [self] in
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { break }
                lock.withLock { collected += chunk[0..<n] }
            }
            close(fd)
            lock.withLock { isEnded = true }
            ended.signal()
        }
    }

    var bytes: [UInt8] { lock.withLock { collected } }

    /// True once the stream has ended (waiting up to `timeout` seconds for it).
    func waitForEnd(timeout: Double) -> Bool {
        if lock.withLock({ isEnded }) { return true }
        guard ended.wait(timeout: .now() + timeout) == .success else { return false }
        ended.signal()  // let later waiters through too
        return true
    }
}

/// A write running on a background thread.
final class BackgroundWrite: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var result: Bool?

    fileprivate func finish(_ ok: Bool) {
        lock.withLock { result = ok }
        done.signal()
    }

    /// Whether every byte was written; nil when the write is still going at the timeout.
    func wait(timeout: Double = LarderProcess.defaultTimeout) -> Bool? {
        if let r = lock.withLock({ result }) { return r }
        guard done.wait(timeout: .now() + timeout) == .success else { return nil }
        done.signal()
        return lock.withLock { result }
    }
}
