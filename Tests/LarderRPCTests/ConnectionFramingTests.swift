import XCTest
import LarderJSON
import LarderRPC

final class ConnectionFramingTests: XCTestCase {
    private func frame(_ body: String) -> String { "Content-Length: \(body.utf8.count)\r\n\r\n\(body)" }

    /// Splits Content-Length framed output, checking each header's length.
    private func unframe(_ output: [UInt8], file: StaticString = #filePath, line: UInt = #line) -> [String] {
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

    func testContentLengthInputGetsContentLengthOutput() {
        let input = frame(#"{"jsonrpc":"2.0","id":1,"method":"echo","params":{"s":"h\u00e9llo ✓ 🍞"}}"#)
            + frame(#"{"jsonrpc":"2.0","method":"note"}"#)
            + "content-length: 42\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n"
            + #"{"jsonrpc":"2.0","id":"b","method":"echo"}"#
        let run = runConnection(Array(input.utf8))
        XCTAssertTrue(run.text.hasPrefix("Content-Length: "), "no line framing: \(run.text)")
        XCTAssertFalse(run.text.contains("}\n"), "no line framing: \(run.text)")
        let bodies = unframe(run.output)
        XCTAssertEqual(bodies, [
            #"{"jsonrpc":"2.0","id":1,"result":{"s":"héllo ✓ 🍞"}}"#,
            #"{"jsonrpc":"2.0","id":"b","result":null}"#,
        ])
        // The length counts bytes, not characters.
        XCTAssertTrue(run.text.hasPrefix("Content-Length: \(bodies[0].utf8.count)\r\n\r\n"), run.text)
        XCTAssertNotEqual(bodies[0].utf8.count, bodies[0].count)
    }

    func testErrorsAndServerRequestsAreFramedToo() {
        let input = frame(#"{"jsonrpc":"2.0","id":1,"method":"ask"}"#)
            + frame("{oops")
            + "Content-Type: x\r\n\r\n"
            + frame(#"{"jsonrpc":"2.0","id":"larder-1","result":[1]}"#)
        let run = runConnection(Array(input.utf8))
        let bodies = unframe(run.output).compactMap { try? JSONParser.parse($0) }
        XCTAssertEqual(bodies.count, 4, run.text)
        XCTAssertEqual(bodies[0]["id"], "larder-1")
        XCTAssertEqual(bodies[0]["method"], "client.method")
        XCTAssertEqual(bodies[1].errorCode, -32700)
        XCTAssertEqual(bodies[2].errorCode, -32700)
        XCTAssertEqual(bodies[3]["id"], 1)
        XCTAssertEqual(bodies[3]["result"], ["result": [1]])
    }

    func testOversizedBodyIsAnsweredAndTheNextMessageWorks() {
        let big = #"{"jsonrpc":"2.0","id":1,"method":"echo","params":{"s":""# + String(repeating: "y", count: 3000) + #""}}"#
        let run = runConnection(Array((frame(big) + frame(#"{"jsonrpc":"2.0","id":2,"method":"echo"}"#)).utf8),
                                maxMessageBytes: 500)
        let bodies = unframe(run.output).compactMap { try? JSONParser.parse($0) }
        XCTAssertEqual(bodies.map(\.errorCode), [-32600, nil], run.text)
        XCTAssertEqual(bodies.last?["id"], 2)
    }
}
