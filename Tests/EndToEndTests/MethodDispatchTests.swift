import XCTest
import LarderJSON

final class MethodDispatchTests: XCTestCase {
    func testUnknownMethodIsMethodNotFound() throws {
        let larder = try startLarder()
        let response = larder.request("no.such.method", id: "u1")
        XCTAssertEqual(response?["id"], "u1")
        XCTAssertEqual(response?.errorCode, -32601)
        XCTAssertTrue(response?["error"]?["message"]?.stringValue?.contains("no.such.method") ?? false)
        assertCleanExit(larder)
    }

    func testUnknownNotificationIsNotAnswered() throws {
        let larder = try startLarder()
        larder.notify("no.such.notification", params: ["x": 1])
        larder.notify("initialized")
        larder.send(#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":42}}"#)
        // The next line on stdout is the answer to the probe, not anything about the notifications.
        larder.send(#"{"jsonrpc":"2.0","id":"p","method":"no.such.method"}"#)
        let next = larder.readMessage()
        XCTAssertEqual(next?["id"], "p")
        assertCleanExit(larder)
    }

    func testBatchThroughTheBinary() throws {
        let larder = try startLarder()
        larder.send(#"[{"jsonrpc":"2.0","id":1,"method":"initialize"},{"jsonrpc":"2.0","method":"initialized"},{"jsonrpc":"2.0","id":2,"method":"nope"}]"#)
        let answers = larder.readMessage()?.arrayValue ?? []
        XCTAssertEqual(answers.count, 2)
        XCTAssertEqual(answers.first?["id"], 1)
        XCTAssertNotNil(answers.first?["result"]?["serverInfo"])
        XCTAssertEqual(answers.last?.errorCode, -32601)
        larder.send("[]")
        XCTAssertEqual(larder.readMessage()?.errorCode, -32600)
        assertStillServing(larder)
        assertCleanExit(larder)
    }

    func testInvalidRequestsGetErrors() throws {
        let larder = try startLarder()
        larder.send(#"{"jsonrpc":"1.0","id":1,"method":"x"}"#)
        XCTAssertEqual(larder.readMessage()?.errorCode, -32600)
        larder.send(#"{"jsonrpc":"2.0","id":2,"method":"x","params":[1]}"#)
        XCTAssertEqual(larder.readMessage()?.errorCode, -32602)
        larder.send(#"{"jsonrpc":"2.0","id":{"a":1},"method":"x"}"#)
        let badID = larder.readMessage()
        XCTAssertEqual(badID?.errorCode, -32600)
        XCTAssertEqual(badID?["id"], .null)
        assertStillServing(larder)
        assertCleanExit(larder)
    }

    func testPipelinedRequestsAreAnsweredInOrder() throws {
        let larder = try startLarder()
        let burst = (1...500).map { #"{"jsonrpc":"2.0","id":\#($0),"method":"no.such.method"}"# }.joined(separator: "\n")
        larder.send(burst)
        for k in 1...500 {
            guard let m = larder.readMessage() else { break }
            XCTAssertEqual(m["id"], .int(k))
        }
        assertCleanExit(larder)
    }
}
