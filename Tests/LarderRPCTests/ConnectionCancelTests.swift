import XCTest
import LarderJSON
import LarderRPC

final class ConnectionCancelTests: XCTestCase {
    func testCancelAnswersADeferredRequestOnce() {
        let handler = FakeHandler()
        let run = runConnection(lines: [
            #"{"jsonrpc":"2.0","id":1,"method":"defer","params":{"key":"k"}}"#,
            #"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}"#,
            #"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}"#,
            #"{"jsonrpc":"2.0","id":2,"method":"finish","params":{"key":"k","value":"too late"}}"#,
        ], handler: handler)
        let lines = run.lines()
        XCTAssertEqual(lines.count, 2, run.text)
        XCTAssertEqual(lines.first?["id"], 1)
        XCTAssertEqual(lines.first?.errorCode, -32800)
        XCTAssertEqual(lines.last?["id"], 2)
        XCTAssertEqual(lines.last?["result"], true)
        XCTAssertEqual(handler.deferred["k"]?.isCancellationRequested, true)
        XCTAssertEqual(handler.deferred["k"]?.isDone, true)
        // $/cancelRequest is the connection's business, not the handler's.
        XCTAssertEqual(handler.notifications.count, 0)
    }

    func testCancelWithAStringId() {
        let run = runConnection(lines: [
            #"{"jsonrpc":"2.0","id":"abc","method":"defer","params":{"key":"k"}}"#,
            #"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"abc"}}"#,
        ])
        XCTAssertEqual(run.lines().map { $0["id"] }, ["abc"])
        XCTAssertEqual(run.lines().first?.errorCode, -32800)
    }

    func testCancelOfAnAnsweredOrUnknownRequestIsIgnored() {
        let run = runConnection(lines: [
            #"{"jsonrpc":"2.0","id":1,"method":"echo"}"#,
            #"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}"#,
            #"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":99}}"#,
            #"{"jsonrpc":"2.0","method":"$/cancelRequest"}"#,
            #"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":{"x":1}}}"#,
        ])
        XCTAssertEqual(run.text, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":null}\n")
    }

    func testAHandlerMayAnswerTheCancellationItself() {
        final class PartialHandler: MessageHandler {
            var reply: Reply?
            func handle(request method: String, params: JSON?, reply: Reply) {
                self.reply = reply
                reply.onCancel = { [unowned reply] in reply.succeed(["partial": true]) }
            }
            func handle(notification method: String, params: JSON?) {}
            func willFlush() {}
            func connectionClosed() {}
        }
        var fds: [Int32] = [0, 0], out: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        XCTAssertEqual(pipe(&out), 0)
        let input = Array("""
            {"jsonrpc":"2.0","id":1,"method":"work"}
            {"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}

            """.utf8)
        _ = input.withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) }
        close(fds[1])
        let handler = PartialHandler()
        let connection = Connection(input: fds[0], output: out[1], maxMessageBytes: 1000)
        connection.handler = handler
        XCTAssertEqual(connection.run(), 0)
        close(fds[0])
        close(out[1])
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = buffer.withUnsafeMutableBytes { read(out[0], $0.baseAddress, $0.count) }
        close(out[0])
        XCTAssertEqual(String(decoding: buffer[0..<max(n, 0)], as: UTF8.self),
                       "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"partial\":true}}\n")
        XCTAssertEqual(handler.reply?.isCancellationRequested, true)
    }
}
