import XCTest
import LarderJSON
import LarderRPC

final class ConnectionFramingTests: XCTestCase {
    private func frame(_ body: String) -> String { "Content-Length: \(body.utf8.count)\r\n\r\n\(body)" }

    func testContentLengthInputGetsContentLengthOutput() {
        let input = frame(#"{"jsonrpc":"2.0","id":1,"method":"echo","params":{"s":"h\u00e9llo ✓ 🍞"}}"#)
            + frame(#"{"jsonrpc":"2.0","method":"note"}"#)
            + "content-length: 42\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n"
            + #"{"jsonrpc":"2.0","id":"b","method":"echo"}"#
        let run = runConnection(Array(input.utf8))
        XCTAssertTrue(run.text.hasPrefix("Content-Length: "), "no line framing: \(run.text)")
        XCTAssertFalse(run.text.contains("}\n"), "no line framing: \(run.text)")
        let bodies = run.framedBodies()
        XCTAssertEqual(bodies, [
            #"{"jsonrpc":"2.0","id":1,"result":{"s":"héllo ✓ 🍞"}}"#,
            #"{"jsonrpc":"2.0","id":"b","result":null}"#,
        ])
        // The length counts bytes, not characters.
        XCTAssertTrue(run.text.hasPrefix("Content-Length: \(bodies[0].utf8.count)\r\n\r\n"), run.text)
        XCTAssertNotEqual(bodies[0].utf8.count, bodies[0].count)
    }

    func testErrorsAndServerRequestsAreFramedToo() {
        // A readable message between the two mistakes: bytes skipped after one
        // (up to the next Content-Length line) are not answered again.
        let input = frame(#"{"jsonrpc":"2.0","id":1,"method":"ask"}"#)
            + frame("{oops")
            + frame(#"{"jsonrpc":"2.0","id":2,"method":"echo"}"#)
            + "Content-Type: x\r\n\r\n"
            + frame(#"{"jsonrpc":"2.0","id":"larder-1","result":[1]}"#)
        let run = runConnection(Array(input.utf8))
        let bodies = run.framedBodies().compactMap { try? JSONParser.parse($0) }
        XCTAssertEqual(bodies.count, 5, run.text)
        guard bodies.count == 5 else { return }
        XCTAssertEqual(bodies[0]["id"], "larder-1")
        XCTAssertEqual(bodies[0]["method"], "client.method")
        XCTAssertEqual(bodies[1].errorCode, -32700)
        XCTAssertEqual(bodies[2]["id"], 2)
        XCTAssertEqual(bodies[3].errorCode, -32700)
        XCTAssertEqual(bodies[4]["id"], 1)
        XCTAssertEqual(bodies[4]["result"], ["result": [1]])
    }

    func testOversizedBodyIsAnsweredAndTheNextMessageWorks() {
        let big = #"{"jsonrpc":"2.0","id":1,"method":"echo","params":{"s":""# + String(repeating: "y", count: 3000) + #""}}"#
        let run = runConnection(Array((frame(big) + frame(#"{"jsonrpc":"2.0","id":2,"method":"echo"}"#)).utf8),
                                maxMessageBytes: 500)
        let bodies = run.framedBodies().compactMap { try? JSONParser.parse($0) }
        XCTAssertEqual(bodies.map(\.errorCode), [-32600, nil], run.text)
        XCTAssertEqual(bodies.last?["id"], 2)
    }
}
