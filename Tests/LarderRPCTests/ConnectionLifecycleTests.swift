import XCTest
import LarderJSON
import LarderRPC

final class ConnectionLifecycleTests: XCTestCase {
    func testEndOfInputReturnsZero() {
        let handler = FakeHandler()
        let run = runConnection(lines: [#"{"jsonrpc":"2.0","id":1,"method":"echo"}"#], handler: handler)
        XCTAssertEqual(run.exitCode, 0)
        XCTAssertEqual(handler.closedCount, 1)
    }

    func testEmptyInputReturnsZero() {
        let run = runConnection([])
        XCTAssertEqual(run.exitCode, 0)
        XCTAssertEqual(run.text, "")
    }

    func testStopReturnsItsCodeAndIgnoresTheRest() {
        let handler = FakeHandler()
        let run = runConnection(lines: [
            #"{"jsonrpc":"2.0","id":1,"method":"echo"}"#,
            #"{"jsonrpc":"2.0","id":2,"method":"stop","params":{"code":3}}"#,
            #"{"jsonrpc":"2.0","id":3,"method":"echo"}"#,
        ], handler: handler)
        XCTAssertEqual(run.exitCode, 3)
        XCTAssertEqual(handler.requests, ["echo", "stop"])
        // What was answered before stopping is still written.
        XCTAssertEqual(run.lines().map { $0["id"] }, [1, 2])
        XCTAssertEqual(handler.closedCount, 1)
    }

    func testStopWithZero() {
        let run = runConnection(lines: [#"{"jsonrpc":"2.0","id":1,"method":"stop","params":{"code":0}}"#,
                                        #"{"jsonrpc":"2.0","id":2,"method":"stop","params":{"code":9}}"#])
        XCTAssertEqual(run.exitCode, 0)
    }

    func testFramingDefaultsToLines() {
        let c = Connection(input: -1, output: -1, maxMessageBytes: 10)
        XCTAssertEqual(c.framing, .lines)
        let framed = Connection(input: -1, output: -1, maxMessageBytes: 10, framing: .contentLength)
        XCTAssertEqual(framed.framing, .contentLength)
    }

    func testOnTrafficSeesBothDirections() {
        var inFDs: [Int32] = [0, 0], outFDs: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&inFDs), 0)
        XCTAssertEqual(pipe(&outFDs), 0)
        let input = Array("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"echo\"}\n".utf8)
        _ = input.withUnsafeBytes { write(inFDs[1], $0.baseAddress, $0.count) }
        close(inFDs[1])
        let handler = FakeHandler()
        let connection = Connection(input: inFDs[0], output: outFDs[1], maxMessageBytes: 1000)
        connection.handler = handler
        var seen: [(Connection.Direction, String)] = []
        connection.onTraffic = { direction, body in seen.append((direction, String(decoding: body, as: UTF8.self))) }
        XCTAssertEqual(connection.run(), 0)
        for fd in [inFDs[0], outFDs[0], outFDs[1]] { close(fd) }
        XCTAssertEqual(seen.count, 2)
        XCTAssertEqual(seen.first?.0, .incoming)
        XCTAssertEqual(seen.first?.1, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"echo\"}")
        XCTAssertEqual(seen.last?.0, .outgoing)
        XCTAssertEqual(seen.last?.1, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":null}")
    }
}
