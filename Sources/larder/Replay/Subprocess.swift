#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LarderRPC

/// A child `larder` driven over pipes, for replaying transcripts.
final class Subprocess {
    let pid: pid_t
    private let stdinFD: Int32
    private let stdoutFD: Int32
    private var buffer: [UInt8] = []
    private var inputClosed = false

    /// Starts `path` with `arguments`; its stderr goes to `stderrPath`.
    init(path: String, arguments: [String], stderrPath: String) throws(ReplayError) {
        var toChild: [Int32] = [0, 0], fromChild: [Int32] = [0, 0]
        // Close-on-exec: a second server started later must not inherit this
        // one's input, or closing it here would never reach this one as EOF.
        guard pipe(&toChild) == 0, pipe(&fromChild) == 0 else { throw .spawn("pipe: \(String(cString: strerror(errno)))") }
        for fd in toChild + fromChild { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        for fd in toChild + fromChild { posix_spawn_file_actions_addclose(&actions, fd) }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let rc = posix_spawn(&child, path, &actions, nil, argv, environ)
        close(toChild[0])
        close(fromChild[1])
        guard rc == 0 else {
            close(toChild[1])
            close(fromChild[0])
            throw .spawn("cannot start \(path): \(String(cString: strerror(rc)))")
        }
        pid = child
        stdinFD = toChild[1]
        stdoutFD = fromChild[0]
    }

    deinit {
        if !inputClosed { close(stdinFD) }
        close(stdoutFD)
    }

    func send(_ bytes: [UInt8]) throws(ReplayError) {
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { write(stdinFD, $0.baseAddress! + written, $0.count - written) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw .io("the server stopped reading its input") }
            written += n
        }
    }

    func closeInput() {
        guard !inputClosed else { return }
        inputClosed = true
        close(stdinFD)
    }

    /// The next message body in `framing`, nil at end of output; throws on timeout.
    func nextMessage(framing: Framing, timeoutMilliseconds: Int32) throws(ReplayError) -> [UInt8]? {
        while true {
            if let message = takeMessage(framing) { return message }
            var fds = pollfd(fd: stdoutFD, events: Int16(POLLIN), revents: 0)
            let ready = poll(&fds, 1, timeoutMilliseconds)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { throw .timeout }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { read(stdoutFD, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return buffer.isEmpty ? nil : takeRest() }
            buffer.append(contentsOf: chunk[0..<n])
        }
    }

    private func takeRest() -> [UInt8] {
        defer { buffer = [] }
        return buffer
    }

    private func takeMessage(_ framing: Framing) -> [UInt8]? {
        switch framing {
        case .lines:
            guard let nl = buffer.firstIndex(of: 0x0A) else { return nil }
            let line = Array(buffer[..<nl])
            buffer.removeSubrange(...nl)
            return line
        case .contentLength:
            let separator: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A]
            guard buffer.count >= 4, let end = (0...(buffer.count - 4)).first(where: { Array(buffer[$0..<($0 + 4)]) == separator }) else {
                return nil
            }
            let header = String(decoding: buffer[..<end], as: UTF8.self).lowercased()
            guard let lengthText = header.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") })?.dropFirst(15),
                  let length = Int(lengthText.trimmingCharacters(in: " ")) else { return nil }
            let start = end + 4
            guard buffer.count >= start + length else { return nil }
            let body = Array(buffer[start..<(start + length)])
            buffer.removeSubrange(..<(start + length))
            return body
        }
    }

    /// Waits for the exit status, killing the child if it has not exited in time.
    func waitForExit(timeoutMilliseconds: Int) -> Int32 {
        var status: Int32 = 0
        var waited = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            if waited >= timeoutMilliseconds {
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
                return -1
            }
            usleep(5000)
            waited += 5
        }
        // WIFEXITED / WEXITSTATUS are macros Swift does not import.
        if status & 0x7f == 0 { return (status >> 8) & 0xff }
        return -(status & 0x7f)
    }
}

enum ReplayError: Error, CustomStringConvertible {
    case spawn(String)
    case io(String)
    case timeout

    var description: String {
        switch self {
        case .spawn(let m), .io(let m): return m
        case .timeout: return "timed out waiting for a message from the server"
        }
    }
}
