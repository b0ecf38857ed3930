import XCTest
import LarderJSON
import LarderRPC

final class ConnectionParseErrorTests: XCTestCase {
    func testParseErrorHasIdNullAndTheNextLineStillWorks() {
        let run = runConnection(lines: [
            #"{"jsonrpc":"2.0","id":1,"method":"echo""#,
            #"{"jsonrpc":"2.0","id":2,"method":"echo"}"#,
        ])
        let lines = run.lines()
        XCTAssertEqual(lines.count, 2, run.text)
        XCTAssertEqual(lines.first?["id"], .null)
        XCTAssertEqual(lines.first?.errorCode, -32700)
        XCTAssertEqual(lines.last?["id"], 2)
        XCTAssertEqual(lines.last?["result"], .null)
    }

    func testInvalidUTF8AndGarbage() {
        var input: [UInt8] = [0xFF, 0xFE, 0x0A]
        input += Array("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"".utf8) + [0xC0, 0x80] + Array("\"}\n".utf8)
        input += [0x00, 0x01, 0x02, 0x7F, 0x0A]
        input += Array("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"echo\"}\n".utf8)
        let run = runConnection(input)
        let lines = run.lines()
        XCTAssertEqual(lines.map(\.errorCode), [-32700, -32700, -32700, nil], run.text)
        XCTAssertEqual(lines.last?["id"], 2)
    }

    func testTooDeepNestingIsAParseError() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        let run = runConnection(lines: [deep, #"{"jsonrpc":"2.0","id":2,"method":"echo"}"#])
        let lines = run.lines()
        XCTAssertEqual(lines.map(\.errorCode), [-32700, nil], run.text)
    }

    func testOversizedLineIsInvalidRequestAndTheNextLineStillWorks() {
        let big = #"{"jsonrpc":"2.0","id":1,"method":"echo","params":{"s":""# + String(repeating: "x", count: 5000) + #""}}"#
        let run = runConnection(lines: [big, #"{"jsonrpc":"2.0","id":2,"method":"echo"}"#], maxMessageBytes: 1000)
        let lines = run.lines()
        XCTAssertEqual(lines.count, 2, run.text)
        XCTAssertEqual(lines.first?["id"], .null)
        XCTAssertEqual(lines.first?.errorCode, -32600)
        XCTAssertEqual(lines.first?["error"]?["data"]?["size"], .int(big.utf8.count))
        XCTAssertEqual(lines.first?["error"]?["data"]?["limit"], 1000)
        XCTAssertEqual(lines.last?["id"], 2)
    }
}
