import XCTest
import LarderJSON
import LarderRPC

final class ConnectionBatchTests: XCTestCase {
    func testBatchIsAnsweredWithOneArray() {
        let handler = FakeHandler()
        let run = runConnection(lines: [
            #"[{"jsonrpc":"2.0","id":1,"method":"echo","params":{"n":1}},{"jsonrpc":"2.0","method":"note"},{"jsonrpc":"2.0","id":2,"method":"nope"}]"#,
        ], handler: handler)
        let lines = run.lines()
        XCTAssertEqual(lines.count, 1, run.text)
        guard let answers = lines.first?.arrayValue else { return XCTFail("not an array: \(run.text)") }
        XCTAssertEqual(answers.count, 2)
        XCTAssertEqual(answers.first?["id"], 1)
        XCTAssertEqual(answers.first?["result"], ["n": 1])
        XCTAssertEqual(answers.last?["id"], 2)
        XCTAssertEqual(answers.last?.errorCode, -32601)
        XCTAssertEqual(handler.notifications.map(\.0), ["note"])
    }

    func testAllNotificationBatchGivesNoOutput() {
        let handler = FakeHandler()
        let run = runConnection(lines: [
            #"[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","method":"b"}]"#,
        ], handler: handler)
        XCTAssertEqual(run.text, "")
        XCTAssertEqual(handler.notifications.map(\.0), ["a", "b"])
    }

    func testAllNotificationBatchThenARequest() {
        let run = runConnection(lines: [
            #"[{"jsonrpc":"2.0","method":"a"}]"#,
            #"{"jsonrpc":"2.0","id":5,"method":"echo"}"#,
        ])
        XCTAssertEqual(run.text, "{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":null}\n")
    }

    func testEmptyBatchIsOneInvalidRequest() {
        let run = runConnection(lines: ["[]", " [ ] "])
        let lines = run.lines()
        XCTAssertEqual(lines.count, 2, run.text)
        for line in lines {
            XCTAssertNil(line.arrayValue)
            XCTAssertEqual(line["id"], .null)
            XCTAssertEqual(line.errorCode, -32600)
        }
    }

    func testInvalidMembersAreAnsweredInsideTheBatch() {
        let run = runConnection(lines: [#"[1,{"jsonrpc":"2.0","id":"x","method":"echo"},"s"]"#])
        guard let answers = run.lines().first?.arrayValue else { return XCTFail(run.text) }
        XCTAssertEqual(answers.count, 3)
        XCTAssertEqual(answers.map(\.errorCode), [-32600, nil, -32600])
        XCTAssertEqual(answers.map { $0["id"] }, [.null, "x", .null])
    }

    func testBatchWaitsForADeferredMember() {
        let run = runConnection(lines: [
            #"[{"jsonrpc":"2.0","id":1,"method":"defer","params":{"key":"k"}},{"jsonrpc":"2.0","id":2,"method":"echo"}]"#,
            #"{"jsonrpc":"2.0","id":3,"method":"finish","params":{"key":"k","value":"late"}}"#,
        ])
        let lines = run.lines()
        XCTAssertEqual(lines.count, 2, run.text)
        // The batch is complete only once its deferred member is answered, by request 3.
        guard let batch = lines.first(where: { $0.arrayValue != nil })?.arrayValue else { return XCTFail(run.text) }
        XCTAssertEqual(Set(batch.compactMap { $0["id"]?.numberValue?.int }), [1, 2])
        XCTAssertEqual(batch.first(where: { $0["id"] == 1 })?["result"], "late")
        XCTAssertEqual(lines.first(where: { $0["id"] == 3 })?["result"], true)
    }
}
