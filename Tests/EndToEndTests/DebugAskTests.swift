import XCTest
import LarderJSON

final class DebugAskTests: XCTestCase {
    func testRefusedWithoutEnableTestMethods() throws {
        let larder = try startLarder()
        let response = larder.request("debug.ask", params: ["method": "client.ping"])
        XCTAssertEqual(response?.errorCode, -32601)
        assertCleanExit(larder)
    }

    func testServerToClientRequestRoundTrip() throws {
        let larder = try startLarder(["--enable-test-methods"])
        larder.send(#"{"jsonrpc":"2.0","id":1,"method":"debug.ask","params":{"method":"client.ping","params":{"n":5}}}"#)
        guard let ask = larder.readMessage() else { return }
        XCTAssertEqual(ask["jsonrpc"], "2.0")
        XCTAssertEqual(ask["id"], "larder-1")
        XCTAssertEqual(ask["method"], "client.ping")
        XCTAssertEqual(ask["params"], ["n": 5])

        // Other requests are served while the server waits for the client.
        assertStillServing(larder, id: 2)

        larder.send(#"{"jsonrpc":"2.0","id":"larder-1","result":{"pong":true}}"#)
        let answer = larder.readMessage()
        XCTAssertEqual(answer?["id"], 1)
        XCTAssertEqual(answer?["result"], ["result": ["pong": true]])
        assertCleanExit(larder)
    }

    func testClientErrorIsPassedBack() throws {
        let larder = try startLarder(["--enable-test-methods"])
        larder.send(#"{"jsonrpc":"2.0","id":"a","method":"debug.ask","params":{"method":"client.fail"}}"#)
        XCTAssertEqual(larder.readMessage()?["id"], "larder-1")
        larder.send(#"{"jsonrpc":"2.0","id":"b","method":"debug.ask","params":{"method":"client.second"}}"#)
        let second = larder.readMessage()
        XCTAssertEqual(second?["id"], "larder-2")
        XCTAssertNil(second?["params"])
        larder.send(#"{"jsonrpc":"2.0","id":"larder-2","result":2}"#)
        XCTAssertEqual(larder.readMessage()?["result"], ["result": 2])
        larder.send(#"{"jsonrpc":"2.0","id":"larder-1","error":{"code":-32000,"message":"client says no"}}"#)
        let answer = larder.readMessage()
        XCTAssertEqual(answer?["id"], "a")
        XCTAssertEqual(answer?["result"]?["error"]?["code"], -32000)
        XCTAssertEqual(answer?["result"]?["error"]?["message"], "client says no")
        // A second answer to the same request is ignored.
        larder.send(#"{"jsonrpc":"2.0","id":"larder-1","result":"again"}"#)
        assertStillServing(larder)
        assertCleanExit(larder)
    }

    func testMissingMethodParamIsInvalidParams() throws {
        let larder = try startLarder(["--enable-test-methods"])
        let response = larder.request("debug.ask", params: ["params": [:]])
        XCTAssertEqual(response?.errorCode, -32602)
        XCTAssertTrue(response?["error"]?["message"]?.stringValue?.contains("params.method") ?? false)
        assertCleanExit(larder)
    }

    func testCancellingAPendingAsk() throws {
        let larder = try startLarder(["--enable-test-methods"])
        larder.send(#"{"jsonrpc":"2.0","id":7,"method":"debug.ask","params":{"method":"client.slow"}}"#)
        XCTAssertEqual(larder.readMessage()?["id"], "larder-1")
        larder.send(#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":7}}"#)
        let cancelled = larder.readMessage()
        XCTAssertEqual(cancelled?["id"], 7)
        XCTAssertEqual(cancelled?.errorCode, -32800)
        // The client's late answer is not answered a second time.
        larder.send(#"{"jsonrpc":"2.0","id":"larder-1","result":1}"#)
        assertStillServing(larder)
        assertCleanExit(larder)
    }
}
