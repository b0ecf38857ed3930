import XCTest
import LarderJSON

/// A client that goes away while the server waits for its `cache.fetch`:
/// the requests waiting for the fetch are answered (the client may still be
/// reading), nothing is stored, no retry is tried, and the process ends well.
final class FetchClientGoneTests: XCTestCase {
    func testWaitersAreAnsweredAndNothingIsStoredWhenTheInputEndsDuringAFetch() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("larder-e2e-fetch-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let larder = try LarderProcess(["--store", dir])
        XCTAssertNotNil(larder.request("initialize", params: ["capabilities": ["fetch": true]])?["result"])
        for id in 2...3 {
            XCTAssertTrue(larder.send(#"{"jsonrpc":"2.0","id":\#(id),"method":"cache.getOrFetch","params":{"key":"k","retries":5,"retryDelayMs":[1,1]}}"#))
        }
        let ask = try XCTUnwrap(larder.readMessage())
        XCTAssertEqual(ask["method"], "cache.fetch", "\(ask)")
        larder.closeStdin()

        var answers: [JSON] = []
        while answers.count < 2, let message = larder.readMessage() { answers.append(message) }
        XCTAssertEqual(answers.map { $0["id"] }, [2, 3], "each waiting request is answered once: \(answers)")
        for answer in answers {
            XCTAssertEqual(answer.errorCode, -31050, "\(answer)")
            XCTAssertEqual(answer["error"]?["data"]?["attempts"], 1, "no retry once the client is gone: \(answer)")
            XCTAssertEqual(answer["error"]?["data"]?["lastError"]?["code"], -32800, "\(answer)")
        }
        XCTAssertTrue(larder.stdoutEnds(), "nothing else is sent")
        XCTAssertEqual(larder.waitForExit(), 0, "stderr: \(larder.stderrAtEnd(timeout: 1))")

        let again = try LarderProcess(["--store", dir])
        XCTAssertEqual(again.request("cache.has", params: ["key": "k"])?["result"]?["found"], false, "nothing was stored")
        assertCleanExit(again)
    }
}
