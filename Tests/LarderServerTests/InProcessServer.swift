import LarderCore
import LarderJSON
import LarderRPC
@testable import LarderServer

/// A server on this thread, on a fresh in-memory store with the clock fixed
/// at 2026-01-01T00:00:00Z, spoken to as a client speaks to `larder`, one
/// request at a time, but through an in-process `EventLoop`: each request
/// is handled, committed and answered before `call` looks at the output,
/// and the requests the server sends meanwhile are answered in turn. No
/// thread, no pipe, no timeout: a test may change the store between calls.
final class InProcessServer {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let store: Store
    private let connection: Connection
    private let server: Server
    /// Output not yet taken as messages; written to by the loop.
    private let output = Output()
    private var nextID = 0
    private var isClosed = false

    private final class Output {
        var bytes: [UInt8] = []
    }

    init(enableTestMethods: Bool) throws {
        var options = ServerOptions(storePath: nil)
        options.enableTestMethods = enableTestMethods
        store = try Store(directory: nil, clock: Clock(fixedAt: 1_767_225_600_000))
        let output = output
        connection = Connection(loop: EventLoop { output.bytes += $0 }, maxMessageBytes: options.maxMessageBytes)
        server = Server(options: options, store: store, connection: connection)
        connection.handler = server
    }

    deinit { finish() }

    /// Sends a request and returns the response to it, the whole message.
    /// Notifications that arrive meanwhile are passed over; each request the
    /// server sends meanwhile is answered with what `answer` returns for it,
    /// a whole response message without its `jsonrpc` and `id`.
    func call(_ method: String, params: JSON, answering answer: (JSON) throws -> JSONObject) throws -> JSON {
        nextID += 1
        let id = JSON.int(nextID)
        send(["jsonrpc": "2.0", "id": id, "method": .string(method), "params": params])
        while let message = try nextMessage() {
            if message["method"] != nil {
                guard let serverID = message["id"] else { continue }
                var response: JSONObject = ["jsonrpc": "2.0", "id": serverID]
                for (key, value) in try answer(message).members { response[key] = value }
                send(.object(response))
            } else if message["id"] == id {
                return message
            } else {
                throw Failure(description: "an answer to no request of this session: \(message)")
            }
        }
        throw Failure(description: "\(method) was not answered, and the server waits for nothing from the client")
    }

    /// Ends the input; the server finishes serving as at the end of its pipe.
    func finish() {
        guard !isClosed else { return }
        isClosed = true
        _ = connection.loop.end(connection)
    }

    private func send(_ message: JSON) {
        connection.loop.deliver(Array((message.description + "\n").utf8), to: connection)
    }

    /// The next message from the server, one line of its output; nil when it has written none.
    private func nextMessage() throws -> JSON? {
        guard let end = output.bytes.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        let line = output.bytes[..<end]
        defer { output.bytes.removeSubrange(...end) }
        do {
            return try JSONParser.parse(line)
        } catch {
            throw Failure(description: "the server wrote a line that is not JSON (\(error)): \(String(decoding: line, as: UTF8.self))")
        }
    }
}
