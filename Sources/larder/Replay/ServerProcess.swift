import LarderRPC
import LarderSystem

/// A child `larder` driven over pipes, for replaying transcripts.
final class ServerProcess {
    private let process: Subprocess
    private var buffer: [UInt8] = []

    /// Starts `path` with `arguments`; its stderr goes to `stderrPath`.
    init(path: String, arguments: [String], stderrPath: String) throws(ReplayError) {
        do {
            process = try Subprocess(path, arguments: arguments, error: .file(stderrPath))
        } catch {
            throw .spawn(error.description)
        }
    }

    func send(_ bytes: [UInt8]) throws(ReplayError) {
        guard process.write(bytes) else { throw .io("the server stopped reading its input") }
    }

    func closeInput() {
        process.closeInput()
    }

    /// The next message body in `framing`, nil at end of output; throws on timeout.
    func nextMessage(framing: Framing, timeoutMilliseconds: Int32) throws(ReplayError) -> [UInt8]? {
        while true {
            if let message = takeMessage(framing) { return message }
            switch process.readOutput(appendingTo: &buffer, timeoutMilliseconds: timeoutMilliseconds) {
            case .bytes: continue
            case .timedOut: throw .timeout
            case .end: return buffer.isEmpty ? nil : takeRest()
            }
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

    /// Waits for the exit code (minus the signal that ended it), killing
    /// the child if it has not exited in time (-1).
    func waitForExit(timeoutMilliseconds: Int) -> Int32 {
        guard let ended = process.wait(timeoutMilliseconds: timeoutMilliseconds) else {
            process.kill()
            process.wait()
            return -1
        }
        switch ended {
        case .exited(let code): return code
        case .signalled(let signal): return -signal
        }
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
