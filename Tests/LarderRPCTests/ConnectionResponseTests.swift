import XCTest
import LarderJSON
import LarderRPC

final class ConnectionResponseTests: XCTestCase {
    func testRequestsAreAnsweredInOrder() {
        let handler = FakeHandler()
        let run = runConnection(lines: [
            #"{"jsonrpc":"2.0","id":1,"method":"echo","params":{"a":1}}"#,
            #"{"jsonrpc":"2.0","id":"two","method":"echo"}"#,
            #"{"jsonrpc":"2.0","id":3,"method":"nope"}"#,
        ], handler: handler)
        let lines = run.text.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 3, run.text)
        XCTAssertEqual(lines.first, #"{"jsonrpc":"2.0","id":1,"result":{"a":1}}"#)
        XCTAssertEqual(lines.dropFirst().first, #"{"jsonrpc":"2.0","id":"two","result":null}"#)
        let third = run.lines().last
        XCTAssertEqual(third?["id"], 3)
        XCTAssertEqual(third?.errorCode, -32601)
        XCTAssertEqual(handler.requests, ["echo", "echo", "nope"])
        XCTAssertEqual(run.exitCode, 0)
    }

    func testIdIsEchoedByteForByte() {
        let run = runConnection(lines: [
            #"{"jsonrpc":"2.0","id":1.0,"method":"echo"}"#,
            #"{"jsonrpc":"2.0","id":98765432109876543210,"method":"echo"}"#,
            #"{"jsonrpc":"2.0","id":null,"method":"echo"}"#,
        ])
        XCTAssertEqual(run.text, """
            {"jsonrpc":"2.0","id":1.0,"result":null}
            {"jsonrpc":"2.0","id":98765432109876543210,"result":null}
            {"jsonrpc":"2.0","id":null,"result":null}

            """)
    }

    func testNotificationsAreNotAnswered() {
        let handler = FakeHandler()
        let run = runConnection(lines: [
            #"{"jsonrpc":"2.0","method":"echo","params":{"x":1}}"#,
            #"{"jsonrpc":"2.0","method":"unknown.notification"}"#,
            #"{"jsonrpc":"2.0","method":"bad.params","params":[1]}"#,
            #"{"jsonrpc":"2.0","method":"bad.params","params":7}"#,
        ], handler: handler)
        XCTAssertEqual(run.text, "")
        XCTAssertEqual(handler.notifications.map(\.0), ["echo", "unknown.notification"])
        XCTAssertEqual(handler.notifications.first?.1, ["x": 1])
        XCTAssertEqual(handler.requests, [])
    }

    func testInvalidRequestsAreAnsweredWithTheirId() {
        let run = runConnection(lines: [
            #"{"jsonrpc":"1.0","id":1,"method":"echo"}"#,
            #"{"jsonrpc":"2.0","id":2,"method":"echo","params":[1,2]}"#,
            #"{"jsonrpc":"2.0","id":{"o":1},"method":"echo"}"#,
            #"42"#,
        ])
        let lines = run.lines()
        XCTAssertEqual(lines.map { $0["id"] }, [1, 2, .null, .null])
        XCTAssertEqual(lines.map(\.errorCode), [-32600, -32602, -32600, -32600])
    }

    func testWillFlushRunsBeforeOutputAndCloseIsReported() {
        let handler = FakeHandler()
        let run = runConnection(lines: [#"{"jsonrpc":"2.0","id":1,"method":"echo"}"#], handler: handler)
        XCTAssertEqual(run.lines().count, 1)
        XCTAssertGreaterThanOrEqual(handler.willFlushCount, 1)
        XCTAssertEqual(handler.closedCount, 1)
    }

    func testUnterminatedLastLineIsServedAtEndOfInput() {
        let run = runConnection(Array(#"{"jsonrpc":"2.0","id":9,"method":"echo","params":{"last":true}}"#.utf8))
        XCTAssertEqual(run.text, "{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{\"last\":true}}\n")
    }

    func testCRLFLines() {
        let run = runConnection(Array("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"echo\"}\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"echo\"}\r\n".utf8))
        XCTAssertEqual(run.lines().map { $0["id"] }, [1, 2])
    }
}
