import XCTest
import LarderJSON

final class ContentLengthFramingTests: XCTestCase {
    func testContentLengthFramingEndToEnd() throws {
        let larder = try startLarder(["--enable-test-methods"])
        larder.sendFramed(#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"lsp-ish ✓"}}}"#)
        let initialize = larder.readFramedMessage()
        XCTAssertEqual(initialize?["id"], 1)
        XCTAssertEqual(initialize?["result"]?["serverInfo"]?["name"], "larder")

        larder.send(bytes: Array("content-length: 52\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n".utf8)
            + Array(#"{"jsonrpc":"2.0","id":"x","method":"no.such.method"}"#.utf8))
        let unknown = larder.readFramedMessage()
        XCTAssertEqual(unknown?["id"], "x")
        XCTAssertEqual(unknown?.errorCode, -32601)

        larder.sendFramed(#"{"jsonrpc":"2.0","id":2,"method":"debug.ask","params":{"method":"client.x"}}"#)
        XCTAssertEqual(larder.readFramedMessage()?["id"], "larder-1")
        larder.sendFramed(#"{"jsonrpc":"2.0","id":"larder-1","result":"é"}"#)
        XCTAssertEqual(larder.readFramedMessage()?["result"], ["result": "é"])

        larder.sendFramed("{not json")
        XCTAssertEqual(larder.readFramedMessage()?.errorCode, -32700)

        larder.sendFramed(#"{"jsonrpc":"2.0","id":3,"method":"shutdown"}"#)
        XCTAssertEqual(larder.readFramedMessage()?["result"], .null)
        larder.sendFramed(#"{"jsonrpc":"2.0","method":"exit"}"#)
        XCTAssertEqual(larder.waitForExit(), 0)
        XCTAssertEqual(larder.readToEnd(), [])
    }

    func testBodySentInPieces() throws {
        let larder = try startLarder()
        let body = #"{"jsonrpc":"2.0","id":9,"method":"no.such.method"}"#
        larder.send(bytes: Array("Content-Length: \(body.utf8.count)\r\n".utf8))
        usleep(20_000)
        larder.send(bytes: Array("\r\n".utf8) + Array(body.utf8.prefix(10)))
        usleep(20_000)
        larder.send(bytes: Array(body.utf8.dropFirst(10)))
        XCTAssertEqual(larder.readFramedMessage()?["id"], 9)
        assertCleanExit(larder)
    }

    func testOversizedFramedBodyIsRefusedAndTheNextOneServed() throws {
        let larder = try startLarder(["--max-message-bytes", "1000"])
        let big = #"{"jsonrpc":"2.0","id":1,"method":"x","params":{"s":""# + String(repeating: "z", count: 5000) + #""}}"#
        larder.sendFramed(big)
        let refused = larder.readFramedMessage()
        XCTAssertEqual(refused?.errorCode, -32600)
        XCTAssertEqual(refused?["id"], .null)
        larder.sendFramed(#"{"jsonrpc":"2.0","id":2,"method":"no.such.method"}"#)
        XCTAssertEqual(larder.readFramedMessage()?.errorCode, -32601)
        assertCleanExit(larder)
    }

    func testMissingContentLengthIsAParseError() throws {
        let larder = try startLarder()
        larder.sendFramed(#"{"jsonrpc":"2.0","id":1,"method":"no.such.method"}"#)
        XCTAssertEqual(larder.readFramedMessage()?["id"], 1)
        larder.send(bytes: Array("Content-Type: text/plain\r\n\r\n".utf8))
        XCTAssertEqual(larder.readFramedMessage()?.errorCode, -32700)
        larder.sendFramed(#"{"jsonrpc":"2.0","id":2,"method":"no.such.method"}"#)
        XCTAssertEqual(larder.readFramedMessage()?["id"], 2)
        assertCleanExit(larder)
    }
}
