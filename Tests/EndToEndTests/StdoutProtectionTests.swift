import XCTest
import LarderJSON

final class StdoutProtectionTests: XCTestCase {
    func testOnlyProtocolMessagesReachStdout() throws {
        let larder = try startLarder(["--log-level", "debug", "--max-message-bytes", "100"])
        larder.send(#"{"jsonrpc":"2.0","id":1,"method":"initialize"}"#)
        larder.send(#"{"jsonrpc":"2.0","method":"some.notification"}"#)
        larder.send(#"{"jsonrpc":"2.0","id":"late","result":1}"#)
        larder.send(String(repeating: "x", count: 500))
        larder.send("{oops")
        larder.send(#"{"jsonrpc":"2.0","id":2,"method":"shutdown"}"#)
        larder.send(#"{"jsonrpc":"2.0","method":"exit"}"#)
        XCTAssertEqual(larder.waitForExit(), 0)
        let out = larder.readToEnd() ?? []
        let lines = out.split(separator: 0x0A, omittingEmptySubsequences: false)
        XCTAssertEqual(lines.last?.isEmpty, true, "stdout ends with a newline")
        var ids: [JSON] = []
        for line in lines.dropLast() {
            guard let m = try? JSONParser.parse(Array(line)) else {
                XCTFail("not a protocol message on stdout: \(String(decoding: line, as: UTF8.self))")
                continue
            }
            XCTAssertEqual(m["jsonrpc"], "2.0")
            ids.append(m["id"] ?? "missing")
        }
        XCTAssertEqual(ids, [1, .null, .null, 2])
        // The diagnostics went to stderr.
        let err = larder.stderrAtEnd()
        XCTAssertTrue(err.contains("larder: "), err)
        XCTAssertTrue(err.contains("unknown request id") || err.contains("ignored"), err)
    }
}
