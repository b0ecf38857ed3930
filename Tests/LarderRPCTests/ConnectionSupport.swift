#if canImport(Glibc)
import Glibc
#endif
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
            connection?.stop(exitCode: Int32((try? p.require("code", as: Int.self)) ?? 0))
            reply.succeed(nil)
        default:
            reply.fail(.methodNotFound(method))
        }
    }

    func handle(notification method: String, params: JSON?) {
        notifications.append((method, params))
    }

    func willFlush() { willFlushCount += 1 }

    func connectionClosed() { closedCount += 1 }
}

/// What one run of a connection produced.
struct ConnectionRun {
    var exitCode: Int32
    var output: [UInt8]

    var text: String { String(decoding: output, as: UTF8.self) }

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
    file: StaticString = #filePath, line: UInt = #line
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

extension JSON {
    /// `error.code` of a response, if it has one.
    var errorCode: Int? { self["error"]?["code"]?.numberValue?.int }
}
