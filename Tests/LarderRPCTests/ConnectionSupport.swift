#if canImport(Glibc)
import Glibc
#endif
import Foundation
import XCTest
import LarderJSON
import LarderRPC

/// A small handler for driving a `Connection` in tests.
///
/// Requests:
/// - `echo`: answers with its params (null when none).
/// - `defer` `{key}`: keeps the reply unanswered under `key`.
/// - `finish` `{key, value}`: answers the deferred reply `key` with `value`, then itself with true.
/// - `ask` `{method, params}`: sends a request to the client and answers with its answer.
/// - `stop` `{code}`: stops the connection with that exit code and answers null.
/// Anything else fails with -32601.
///
/// Answered straight from its bytes when plain (`answer(directly:into:)`):
/// - `text` `{n}`: a string of `n` x's; `{n, held: true}`: the same, held
///   until the next flush as answers that wait for a commit are (and, as
///   there, any `text` answer that follows one held is held too).
final class FakeHandler: MessageHandler {
    weak var connection: Connection?
    var requests: [String] = []
    var notifications: [(String, JSON?)] = []
    var deferred: [String: Reply] = [:]
    var willFlushCount = 0
    var closedCount = 0
    var clientAnswers: [Result<JSON, ResponseError>] = []

    func handle(request method: String, params: JSON?, reply: Reply) {
        requests.append(method)
        let p = ParamsReader(params)
        switch method {
        case "echo":
            reply.succeed(params ?? .null)
        case "defer":
            deferred[(try? p.require("key", as: String.self)) ?? ""] = reply
        case "finish":
            let key = (try? p.require("key", as: String.self)) ?? ""
            deferred[key]?.succeed(p["value"] ?? .null)
            reply.succeed(true)
        case "ask":
            let method = (try? p.require("method", as: String.self)) ?? "client.method"
            guard let origin = reply.origin else { return reply.fail(.internalError("no connection")) }
            origin.request(method, params: p["params"]) { [weak self] result in
                self?.clientAnswers.append(result)
                switch result {
                case .success(let value): reply.succeed(["result": value])
                case .failure(let error): reply.succeed(["error": error.json])
                }
            }
        case "stop":
            connection?.loop.stop(exitCode: Int32((try? p.require("code", as: Int.self)) ?? 0))
            reply.succeed(nil)
        default:
            reply.fail(.methodNotFound(method))
        }
    }

    func handle(notification method: String, params: JSON?) {
        notifications.append((method, params))
    }

    let directMethods: [StaticString] = ["text"]
    /// `text` answers held until the next flush: id and result.
    private var held: [(RequestID, [UInt8])] = []

    func answer(directly request: RequestView, into result: inout JSONWriter) -> DirectAnswer {
        guard case .other(let n) = request.params["n"],
              let count = Int(String(decoding: n, as: UTF8.self)) else { return .declined }
        requests.append("text")
        result.writeString(String(repeating: "x", count: count))
        if case .absent = request.params["held"], held.isEmpty { return .answered }
        held.append((request.id, result.copiedBytes))
        return .later
    }

    func willFlush() {
        willFlushCount += 1
        let answers = held
        held = []
        for (id, result) in answers { result.withUnsafeBufferPointer { connection?.respond(to: id, withResultJSON: $0) } }
    }

    func connectionClosed() { closedCount += 1 }
}

/// What one run of a connection produced.
struct ConnectionRun {
    var exitCode: Int32
    var output: [UInt8]

    var text: String { String(decoding: output, as: UTF8.self) }

    /// The bodies of Content-Length framed output, checking each header's length.
    func framedBodies(file: StaticString = #filePath, line: UInt = #line) -> [String] {
        var bodies: [String] = []
        var k = 0
        let separator: [UInt8] = [13, 10, 13, 10]
        while k < output.count {
            guard let end = (k...(output.count - 4)).first(where: { Array(output[$0..<($0 + 4)]) == separator }) else {
                XCTFail("no header end in \(String(decoding: output[k...], as: UTF8.self))", file: file, line: line)
                break
            }
            let header = String(decoding: output[k..<end], as: UTF8.self)
            guard header.hasPrefix("Content-Length: "), let length = Int(header.dropFirst("Content-Length: ".count)) else {
                XCTFail("bad header \(header)", file: file, line: line)
                break
            }
            let bodyStart = end + 4
            guard bodyStart + length <= output.count else {
                XCTFail("short body", file: file, line: line)
                break
            }
            bodies.append(String(decoding: output[bodyStart..<(bodyStart + length)], as: UTF8.self))
            k = bodyStart + length
        }
        return bodies
    }

    /// The output split into lines (line framing), each parsed as JSON.
    func lines(file: StaticString = #filePath, line: UInt = #line) -> [JSON] {
        text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().compactMap { l in
            do { return try JSONParser.parse(String(l)) } catch {
                XCTFail("output line is not JSON: \(l)", file: file, line: line)
                return nil
            }
        }
    }
}

/// Writes all of `input` to a pipe, closes it, and serves it with a fresh
/// connection on this thread; returns the exit code and everything written.
/// Inputs stay well under a pipe's 64 KB so that nothing blocks.
func runConnection(
    _ input: [UInt8], handler: FakeHandler = FakeHandler(), maxMessageBytes: Int = 1 << 20,
    configure: (Connection) -> Void = { _ in }, file: StaticString = #filePath, line: UInt = #line
) -> ConnectionRun {
    precondition(input.count < 60_000, "keep test input under a pipe buffer")
    var inFDs: [Int32] = [0, 0]
    var outFDs: [Int32] = [0, 0]
    guard pipe(&inFDs) == 0, pipe(&outFDs) == 0 else {
        XCTFail("pipe failed", file: file, line: line)
        return ConnectionRun(exitCode: -1, output: [])
    }
    var written = 0
    while written < input.count {
        let n = input.withUnsafeBytes { write(inFDs[1], $0.baseAddress! + written, $0.count - written) }
        guard n > 0 else { break }
        written += n
    }
    close(inFDs[1])

    let connection = Connection(input: inFDs[0], output: outFDs[1], maxMessageBytes: maxMessageBytes)
    connection.handler = handler
    handler.connection = connection
    configure(connection)
    let code = withExtendedLifetime(handler) { connection.run() }
    close(inFDs[0])
    close(outFDs[1])

    var output: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = buffer.withUnsafeMutableBytes { read(outFDs[0], $0.baseAddress, $0.count) }
        if n <= 0 { break }
        output += buffer[0..<n]
    }
    close(outFDs[0])
    return ConnectionRun(exitCode: code, output: output)
}

func runConnection(lines: [String], handler: FakeHandler = FakeHandler(), maxMessageBytes: Int = 1 << 20,
                   file: StaticString = #filePath, line: UInt = #line) -> ConnectionRun {
    runConnection(Array(lines.map { $0 + "\n" }.joined().utf8), handler: handler, maxMessageBytes: maxMessageBytes,
                  file: file, line: line)
}

/// Serves `reads` with a fresh connection, each element arriving in a read
/// of its own, as from a client that writes each message separately: the next
/// one is written only once the connection has taken the previous one out of
/// the pipe. Returns the exit code and everything written.
func runConnection(
    reads: [[UInt8]], handler: FakeHandler = FakeHandler(), maxMessageBytes: Int = 1 << 20
) -> ConnectionRun {
    var inFDs: [Int32] = [0, 0], outFDs: [Int32] = [0, 0]
    precondition(pipe(&inFDs) == 0 && pipe(&outFDs) == 0)
    let readEnd = inFDs[0], writeEnd = inFDs[1], outputEnd = outFDs[0]
    let writer = Thread {
        for chunk in reads {
            var pending: Int32 = 1
            while ioctl(readEnd, UInt(FIONREAD), &pending) == 0 && pending > 0 { usleep(200) }
            var written = 0
            while written < chunk.count {
                let n = chunk.withUnsafeBytes { write(writeEnd, $0.baseAddress! + written, $0.count - written) }
                guard n > 0 else { break }
                written += n
            }
        }
        close(writeEnd)
    }
    // Answers are drained as they come so the connection never blocks on output.
    let output = OutputCollector()
    let reader = Thread {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(outputEnd, $0.baseAddress, $0.count) }
            guard n > 0 else { break }
            output.append(buffer[0..<n])
        }
    }
    reader.start()
    writer.start()
    let connection = Connection(input: readEnd, output: outFDs[1], maxMessageBytes: maxMessageBytes)
    connection.handler = handler
    handler.connection = connection
    let code = withExtendedLifetime(handler) { connection.run() }
    while !writer.isFinished { usleep(1000) }
    close(readEnd)
    close(outFDs[1])
    while !reader.isFinished { usleep(1000) }
    close(outputEnd)
    return ConnectionRun(exitCode: code, output: output.bytes)
}

/// Bytes gathered on one thread and read on another.
private final class OutputCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var collected: [UInt8] = []
    func append(_ bytes: ArraySlice<UInt8>) { lock.withLock { collected += bytes } }
    var bytes: [UInt8] { lock.withLock { collected } }
}

extension JSON {
    /// `error.code` of a response, if it has one.
    var errorCode: Int? { self["error"]?["code"]?.numberValue?.int }
}
