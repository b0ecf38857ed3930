import XCTest
import LarderJSON
import LarderRPC

/// Pretty-printed JSON sent with line framing: one clear error per message,
/// to its id, and the lines after it served as usual.
final class ConnectionSplitMessageTests: XCTestCase {
    private let pretty = [
        "{",
        #"  "jsonrpc": "2.0","#,
        #"  "id": 7,"#,
        #"  "method": "echo","#,
        #"  "params": {"text": "a { and a } in a string", "list": [1, 2]}"#,
        "}",
    ]

    func testAPrettyPrintedMessageGetsOneErrorToItsId() {
        let run = runConnection(lines: pretty + [#"{"jsonrpc":"2.0","id":8,"method":"echo"}"#])
        let lines = run.lines()
        XCTAssertEqual(lines.count, 2, run.text)
        XCTAssertEqual(lines.first?["id"], 7)
        XCTAssertEqual(lines.first?.errorCode, -32700)
        let message = lines.first?["error"]?["message"]?.stringValue ?? ""
        XCTAssertTrue(message.contains("each message must be one line"), message)
        XCTAssertTrue(message.contains("Content-Length"), message)
        XCTAssertTrue(message.contains("6 lines"), message)
        XCTAssertEqual(lines.last?["id"], 8)
        XCTAssertEqual(lines.last?.errorCode, nil)
    }

    func testAnUnterminatedObjectFollowedByMoreLinesIsOneError() {
        let run = runConnection(lines: [#"{"jsonrpc":"2.0","id":"a","#, #""method":"echo"}"#, #"{"jsonrpc":"2.0","id":2,"method":"echo"}"#])
        let lines = run.lines()
        XCTAssertEqual(lines.map(\.errorCode), [-32700, nil], run.text)
        XCTAssertEqual(lines.first?["id"], "a")
        XCTAssertEqual(lines.last?["id"], 2)
    }

    func testAWholeMessageEndsAnUnfinishedOne() {
        // The brackets never close: the next complete request must not be swallowed.
        let run = runConnection(lines: ["{", #"  "jsonrpc": "2.0","#, #"{"jsonrpc":"2.0","id":3,"method":"echo"}"#])
        let lines = run.lines()
        XCTAssertEqual(lines.map(\.errorCode), [-32700, nil], run.text)
        XCTAssertEqual(lines.first?["id"], .null)
        XCTAssertEqual(lines.last?["id"], 3)
    }

    /// A batch printed one request a line: its last request has no comma
    /// after it and is a whole message of its own, and was run.
    func testAPrettyPrintedBatchIsOneErrorAndNoneOfItRuns() {
        let handler = FakeHandler()
        let batch = [
            "[",
            #"  {"jsonrpc": "2.0", "id": 1, "method": "echo", "params": {"text": "] and } and \" in a string"}},"#,
            #"  {"jsonrpc": "2.0", "id": 2, "method": "echo", "params": {"text": "[{\\"}}"#,
            "]",
        ]
        let run = runConnection(lines: batch + [#"{"jsonrpc":"2.0","id":3,"method":"echo"}"#], handler: handler)
        let lines = run.lines()
        XCTAssertEqual(lines.map(\.errorCode), [-32700, nil], run.text)
        XCTAssertEqual(lines.first?["id"], .null)
        XCTAssertTrue((lines.first?["error"]?["message"]?.stringValue ?? "").contains("spread over 4 lines"), run.text)
        XCTAssertEqual(lines.last?["id"], 3)
        XCTAssertEqual(handler.requests, ["echo"], "only the request after the batch ran")
    }

    func testAPrettyPrintedObjectWithAWholeRequestAsAMemberValueIsOneError() {
        let handler = FakeHandler()
        let pretty = [
            "{",
            #"  "jsonrpc": "2.0", "id": 9, "method": "echo","#,
            #"  "params":"#,
            #"{"jsonrpc":"2.0","id":10,"method":"echo"}"#,
            "}",
        ]
        let run = runConnection(lines: pretty + [#"{"jsonrpc":"2.0","id":11,"method":"echo"}"#], handler: handler)
        XCTAssertEqual(run.lines().map(\.errorCode), [-32700, nil], run.text)
        XCTAssertEqual(run.lines().map { $0["id"] }, [9, 11], run.text)
        XCTAssertEqual(handler.requests, ["echo"], run.text)
    }

    func testALineThatCannotComeNextEndsAnUnfinishedMessage() {
        // Each first line is cut short where the next line's first token cannot follow.
        for start in [#"{"jsonrpc":"2.0","id":1,"#, #"{"jsonrpc":"2.0","id":1"#, #"[{"jsonrpc":"2.0","id":1,"method":"echo"}"#, #"{"a": [1, 2"#] {
            let handler = FakeHandler()
            let run = runConnection(lines: [start, #"{"jsonrpc":"2.0","id":2,"method":"echo"}"#], handler: handler)
            XCTAssertEqual(run.lines().map(\.errorCode), [-32700, nil], "\(start): \(run.text)")
            XCTAssertEqual(run.lines().last?["id"], 2, start)
            XCTAssertEqual(handler.requests, ["echo"], start)
        }
    }

    func testAfterAMistakeInsideTheGatheredLinesAWholeRequestEndsThem() {
        // `1 x` is no JSON: what may come next is unknown, and the `[` may never close.
        let handler = FakeHandler()
        let run = runConnection(lines: ["[", "  1 x,", #"{"jsonrpc":"2.0","id":2,"method":"echo"}"#, #"{"jsonrpc":"2.0","id":3,"method":"echo"}"#],
                                handler: handler)
        XCTAssertEqual(run.lines().map(\.errorCode), [-32700, nil, nil], run.text)
        XCTAssertEqual(run.lines().map { $0["id"] }, [.null, 2, 3], run.text)
        XCTAssertEqual(handler.requests, ["echo", "echo"])
    }

    func testALineEndingInsideAStringIsTheLastOfItsMessage() {
        let handler = FakeHandler()
        let run = runConnection(lines: [#"{"jsonrpc":"2.0","id":1,"#, #""method":"echo","params":{"text":"cut"#,
                                        #"{"jsonrpc":"2.0","id":2,"method":"echo"}"#], handler: handler)
        XCTAssertEqual(run.lines().map(\.errorCode), [-32700, nil], run.text)
        XCTAssertEqual(run.lines().last?["id"], 2)
        XCTAssertEqual(handler.requests, ["echo"])
    }

    func testAPrettyPrintedBatchOverTheLimitIsOneErrorAndNoneOfItRuns() {
        let handler = FakeHandler()
        let request = #"  {"jsonrpc": "2.0", "id": 1, "method": "echo", "params": {"padding": "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}}"#
        let batch = ["["] + Array(repeating: request + ",", count: 20) + [request, "]"]
        let run = runConnection(lines: batch + [#"{"jsonrpc":"2.0","id":5,"method":"echo"}"#], handler: handler, maxMessageBytes: 1000)
        XCTAssertEqual(run.lines().map(\.errorCode), [-32600, nil], run.text)
        XCTAssertEqual(run.lines().last?["id"], 5)
        XCTAssertEqual(handler.requests, ["echo"], run.text)
    }

    func testAnUnfinishedMessageAtTheEndOfInputIsAnswered() {
        let run = runConnection(lines: ["{", #"  "jsonrpc": "2.0", "id": 4,"#])
        let lines = run.lines()
        XCTAssertEqual(lines.map(\.errorCode), [-32700], run.text)
        XCTAssertTrue((lines.first?["error"]?["message"]?.stringValue ?? "").contains("one line"), run.text)
    }

    func testALineCutShortIsAnOrdinaryParseError() {
        let run = runConnection(lines: [#"{"jsonrpc":"2.0","id":1,"method":"echo""#])
        let lines = run.lines()
        XCTAssertEqual(lines.map(\.errorCode), [-32700], run.text)
        let message = lines.first?["error"]?["message"]?.stringValue ?? ""
        XCTAssertTrue(message.contains("unexpected end of input"), message)
    }

    func testASplitMessageLargerThanTheLimitIsRefusedAndForgotten() {
        let lines = ["{"] + Array(repeating: #"  "padding": "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx","#, count: 40)
            + ["}", #"{"jsonrpc":"2.0","id":5,"method":"echo"}"#]
        let run = runConnection(lines: lines, maxMessageBytes: 1000)
        let answers = run.lines()
        XCTAssertEqual(answers.first?.errorCode, -32600, run.text)
        XCTAssertEqual(answers.last?["id"], 5, run.text)
    }
}
