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

    private func request(_ id: Int) -> String { #"{"jsonrpc":"2.0","id":\#(id),"method":"cache.list"}"# }

    /// The reliability issue's reproduction: a stray byte after a body, then
    /// five requests written separately 0.3 s apart, as an editor sends them.
    func testAStrayByteAfterABodyStrandsNoLaterRequest() throws {
        let larder = try startLarder()
        larder.send(bytes: Array("Content-Length: 46\r\n\r\n\(request(0))x".utf8))
        XCTAssertEqual(larder.readFramedMessage()?["id"], 0)
        var errors: [JSON] = []
        for id in 1...5 {
            usleep(300_000)
            larder.sendFramed(request(id))
            let messages = larder.readFramedUntilResponse(id: .int(id))
            XCTAssertEqual(messages.last?["result"]?["caches"], [], "request \(id)")
            errors += messages.dropLast()
        }
        XCTAssertEqual(errors.map(\.errorCode), [-32700])
        XCTAssertEqual(errors.first?["id"], .null)
        assertCleanExit(larder)
    }

    /// Every kind of mistake, each written on its own and followed by a
    /// request written on its own: the request is answered, and the mistake
    /// with one error to id null.
    func testEveryRequestAfterAMistakeIsAnswered() throws {
        let body = request(99)
        let mistakes: [(String, String)] = [
            ("a stray byte", "x"),
            ("a body one byte longer than declared", "Content-Length: \(body.utf8.count - 1)\r\n\r\n\(body)"),
            ("a body one byte shorter than declared", "Content-Length: \(body.utf8.count + 1)\r\n\r\n\(body)"),
            ("a body far shorter than declared", "Content-Length: 100000\r\n\r\n\(body)"),
            ("a negative length", "Content-Length: -1\r\n\r\n\(body)"),
            ("a length that is not a number", "Content-Length: abc\r\n\r\n\(body)"),
            ("no Content-Length", "Content-Type: application/json\r\n\r\n\(body)"),
            ("a header line without a colon", "hello\r\n\r\n"),
            ("a header block cut short", "Content-Length: 46\r\n"),
            ("a body that is not JSON", "Content-Length: 5\r\n\r\n{oops"),
            ("a line of JSON", body + "\n"),
            ("a header block over the limit", "X-Pad: " + String(repeating: "a", count: 9000) + "\r\n\r\n{}"),
            ("a body over the size limit", "Content-Length: 5000\r\n\r\n" + String(repeating: " ", count: 5000)),
        ]
        let larder = try startLarder(["--max-message-bytes", "4096"])
        larder.sendFramed(request(0))
        XCTAssertEqual(larder.readFramedMessage()?["id"], 0)
        for (id, (name, mistake)) in mistakes.enumerated().map({ ($0 + 1, $1) }) {
            larder.send(bytes: Array(mistake.utf8))
            usleep(20_000)
            larder.sendFramed(request(id))
            let messages = larder.readFramedUntilResponse(id: .int(id))
            XCTAssertEqual(messages.last?["id"], .int(id), name)
            XCTAssertEqual(messages.dropLast().map(\.errorCode).count, 1, "\(name): \(messages)")
            XCTAssertEqual(messages.dropLast().map(\.["id"]), [.null], "\(name): \(messages)")
        }
        assertCleanExit(larder)
    }

    /// 20 MB of header text without a blank line is one error, not one per read.
    func testStreamedHeaderTextIsOneError() throws {
        let larder = try startLarder()
        let job = larder.sendInBackground(prefix: Array("Content-Length: 5\r\nX-Pad: ".utf8), filler: UInt8(ascii: "a"),
                                          fillerCount: 20 << 20, suffix: Array("Content-Length: 46\r\n\r\n\(request(1))".utf8))
        let messages = larder.readFramedUntilResponse(id: 1, timeout: 60)
        XCTAssertEqual(job.wait(timeout: 60), true)
        XCTAssertEqual(messages.map(\.errorCode), [-32700, nil])
        XCTAssertEqual(messages.first?["error"]?["message"], "Parse error: header block longer than 8192 bytes")
        assertCleanExit(larder)
    }

    func testAHeaderBlockOverTheLimitIsRefusedWhenItArrivesWhole() throws {
        let larder = try startLarder()
        let pad = "X-Pad: " + String(repeating: "a", count: 8200)
        larder.send(bytes: Array("Content-Length: 46\r\n\(pad)\r\n\r\n\(request(1))".utf8))
        let refused = larder.readFramedMessage()
        XCTAssertEqual(refused?.errorCode, -32700)
        XCTAssertEqual(refused?["id"], .null)
        larder.sendFramed(request(2))
        XCTAssertEqual(larder.readFramedMessage()?["id"], 2)
        assertCleanExit(larder)
    }
}
