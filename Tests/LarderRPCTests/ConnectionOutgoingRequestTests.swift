import XCTest
import LarderJSON
import LarderRPC

final class ConnectionOutgoingRequestTests: XCTestCase {
    func testServerToClientRequestIsRoutedBack() {
        let handler = FakeHandler()
        let run = runConnection(lines: [
            #"{"jsonrpc":"2.0","id":1,"method":"ask","params":{"method":"client.color","params":{"of":"sky"}}}"#,
            #"{"jsonrpc":"2.0","id":"larder-1","result":"blue"}"#,
        ], handler: handler)
        let lines = run.text.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines, [
            #"{"jsonrpc":"2.0","id":"larder-1","method":"client.color","params":{"of":"sky"}}"#,
            #"{"jsonrpc":"2.0","id":1,"result":{"result":"blue"}}"#,
        ])
        XCTAssertEqual(handler.clientAnswers.count, 1)
    }

    func testIdsCountUpAndErrorsAreRoutedToo() {
        let run = runConnection(lines: [
            #"{"jsonrpc":"2.0","id":1,"method":"ask"}"#,
            #"{"jsonrpc":"2.0","id":2,"method":"ask"}"#,
            #"{"jsonrpc":"2.0","id":"larder-2","error":{"code":-32601,"message":"no such method"}}"#,
            #"{"jsonrpc":"2.0","id":"larder-1","result":1}"#,
        ])
        let lines = run.lines()
        XCTAssertEqual(lines.count, 4, run.text)
        XCTAssertEqual(lines[0]["id"], "larder-1")
        XCTAssertEqual(lines[0]["method"], "client.method")
        XCTAssertNil(lines[0]["params"])
        XCTAssertEqual(lines[1]["id"], "larder-2")
        XCTAssertEqual(lines[2]["id"], 2)
        XCTAssertEqual(lines[2]["result"]?["error"]?["code"], -32601)
        XCTAssertEqual(lines[3]["id"], 1)
        XCTAssertEqual(lines[3]["result"], ["result": 1])
    }

    func testResponseForAnUnknownIdIsIgnored() {
        let run = runConnection(lines: [
            #"{"jsonrpc":"2.0","id":"larder-7","result":1}"#,
            #"{"jsonrpc":"2.0","id":"larder-8","error":{"code":1,"message":"m"}}"#,
            #"{"jsonrpc":"2.0","id":1,"method":"echo"}"#,
        ])
        XCTAssertEqual(run.text, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":null}\n")
    }

    func testResponseArrivesOnlyOnce() {
        let handler = FakeHandler()
        let run = runConnection(lines: [
            #"{"jsonrpc":"2.0","id":1,"method":"ask"}"#,
            #"{"jsonrpc":"2.0","id":"larder-1","result":1}"#,
            #"{"jsonrpc":"2.0","id":"larder-1","result":2}"#,
        ], handler: handler)
        XCTAssertEqual(run.lines().count, 2, run.text)
        XCTAssertEqual(handler.clientAnswers.count, 1)
    }

    func testUnansweredRequestsFailWhenTheInputEnds() {
        let handler = FakeHandler()
        let run = runConnection(lines: [#"{"jsonrpc":"2.0","id":1,"method":"ask"}"#], handler: handler)
        XCTAssertEqual(run.lines().first?["id"], "larder-1")
        XCTAssertEqual(handler.clientAnswers.count, 1)
        guard case .failure(let error)? = handler.clientAnswers.first else { return XCTFail() }
        XCTAssertEqual(error.code, .requestCancelled)
    }

    /// Requests still waiting for the client when the input ends fail in the
    /// order they were sent, so the answers waiting on them leave in the order
    /// the requests came, and a session's output is the same on every run.
    func testUnansweredRequestsFailInTheOrderSentWhenTheInputEnds() {
        let asks = (1...12).map { #"{"jsonrpc":"2.0","id":\#($0),"method":"ask"}"# }
        let run = runConnection(lines: asks)
        let answers = run.lines().filter { $0["method"] == nil }
        XCTAssertEqual(answers.compactMap { $0["id"]?.numberValue?.int }, Array(1...12), run.text)
    }
}
