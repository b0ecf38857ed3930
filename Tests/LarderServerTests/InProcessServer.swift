#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import LarderCore
import LarderJSON
@testable import LarderServer

/// A server on a thread of its own in this process, on a fresh in-memory
/// store with the clock fixed at 2026-01-01T00:00:00Z, spoken to over pipes
/// one request at a time as a client speaks to `larder`: unlike
/// `serveSession`, it can answer the requests the server sends meanwhile.
final class InProcessServer {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The client's side of the pipes.
    private let toServer: Int32, fromServer: Int32
    private let finished = DispatchSemaphore(value: 0)
    private var received: [UInt8] = []
    private var nextID = 0
    private var isClosed = false
    /// How long an answer may take before the server is taken to be stuck.
    private let patience: Int32 = 30_000

    init(enableTestMethods: Bool) throws {
        // A server that stops reading must fail the test, not kill the process.
        signal(SIGPIPE, SIG_IGN)
        var requests: [Int32] = [0, 0], answers: [Int32] = [0, 0]
        guard pipe(&requests) == 0, pipe(&answers) == 0 else { throw Failure(description: "pipe(2) failed") }
        toServer = requests[1]
        fromServer = answers[0]
        let input = requests[0], output = answers[1], finished = finished
        let thread = Thread {
            var options = ServerOptions(storePath: nil)
            options.enableTestMethods = enableTestMethods
            if let store = try? Store(directory: nil, clock: Clock(fixedAt: 1_767_225_600_000)) {
                _ = LarderService.serve(options: options, store: store, input: input, output: output)
            }
            close(input)
            close(output)
            finished.signal()
        }
        thread.stackSize = 16 << 20
        thread.start()
    }

    deinit {
        finish()
        close(fromServer)
    }

    /// Sends a request and returns the response to it, the whole message.
    /// Notifications that arrive meanwhile are passed over; each request the
    /// server sends meanwhile is answered with what `answer` returns for it,
    /// a whole response message without its `jsonrpc` and `id`.
    func call(_ method: String, params: JSON, answering answer: (JSON) throws -> JSONObject) throws -> JSON {
        nextID += 1
        let id = JSON.int(nextID)
        try send(["jsonrpc": "2.0", "id": id, "method": .string(method), "params": params])
        while true {
            let message = try nextMessage()
            if message["method"] != nil {
                guard let serverID = message["id"] else { continue }
                var response: JSONObject = ["jsonrpc": "2.0", "id": serverID]
                for (key, value) in try answer(message).members { response[key] = value }
                try send(.object(response))
            } else if message["id"] == id {
                return message
            } else {
                throw Failure(description: "an answer to no request of this session: \(message)")
            }
        }
    }

    /// Closes the server's input and waits until it has finished serving.
    func finish() {
        guard !isClosed else { return }
        isClosed = true
        close(toServer)
        finished.wait()
    }

    private func send(_ message: JSON) throws {
        let line = Array((message.description + "\n").utf8)
        var sent = 0
        while sent < line.count {
            let n = line[sent...].withUnsafeBytes { write(toServer, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw Failure(description: "the server stopped reading: \(String(cString: strerror(errno)))") }
            sent += n
        }
    }

    /// The next message from the server, one line of its output.
    private func nextMessage() throws -> JSON {
        while true {
            if let end = received.firstIndex(of: UInt8(ascii: "\n")) {
                let line = received[..<end]
                received.removeSubrange(...end)
                do {
                    return try JSONParser.parse(line)
                } catch {
                    throw Failure(description: "the server wrote a line that is not JSON (\(error)): \(String(decoding: line, as: UTF8.self))")
                }
            }
            var ready = pollfd(fd: fromServer, events: Int16(POLLIN), revents: 0)
            let polled = poll(&ready, 1, patience)
            if polled < 0 && errno == EINTR { continue }
            guard polled > 0 else { throw Failure(description: "no answer within \(patience / 1000) s") }
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            let n = chunk.withUnsafeMutableBytes { read(fromServer, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw Failure(description: "the server closed its output before answering") }
            received += chunk[..<n]
        }
    }
}
