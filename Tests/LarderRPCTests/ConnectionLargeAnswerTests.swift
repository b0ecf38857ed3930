import XCTest
import LarderJSON
import LarderRPC

/// A result of `largeMessageBytes` or more is written from where it lies
/// instead of being copied into the output buffer first. The bytes the
/// client receives must be exactly those the buffered path sends, in order,
/// answered at once or held, with either framing.
final class ConnectionLargeAnswerTests: XCTestCase {
    private let bodies = [
        #"{"jsonrpc":"2.0","id":1,"method":"text","params":{"n":3}}"#,
        #"{"jsonrpc":"2.0","id":2,"method":"echo","params":{"before":"large"}}"#,
        #"{"jsonrpc":"2.0","id":"s","method":"text","params":{"n":40}}"#,
        #"{"jsonrpc":"2.0","id":4,"method":"text","params":{"n":50,"held":true}}"#,
        #"{"jsonrpc":"2.0","id":5,"method":"echo","params":{"while":"held"}}"#,
        #"{"jsonrpc":"2.0","id":6,"method":"text","params":{"n":2,"held":true}}"#,
        #"{"jsonrpc":"2.0","id":7,"method":"text","params":{"n":300}}"#,
        #"{"jsonrpc":"2.0","id":8,"method":"echo","params":{"after":"large"}}"#,
    ]

    /// Results of 16 bytes or more take the large path.
    private func large(_ connection: Connection) { connection.largeMessageBytes = 16 }

    func testLargeResultsLeaveAsBufferedOnesWithLineFraming() {
        let input = Array(bodies.map { $0 + "\n" }.joined().utf8)
        let buffered = runConnection(input)
        let direct = runConnection(input, configure: large)
        XCTAssertEqual(direct.text, buffered.text)
        let answers = direct.lines()
        XCTAssertEqual(answers.map { $0["id"]?.description ?? "" }, ["1", "2", #""s""#, "5", "8", "4", "6", "7"])
        XCTAssertEqual(answers.compactMap { $0["result"]?.stringValue?.count }, [3, 40, 50, 2, 300])
    }

    func testLargeResultsLeaveAsBufferedOnesWithContentLengthFraming() {
        let input = Array(bodies.map { "Content-Length: \($0.utf8.count)\r\n\r\n\($0)" }.joined().utf8)
        let buffered = runConnection(input)
        let direct = runConnection(input, configure: large)
        XCTAssertTrue(buffered.text.hasPrefix("Content-Length: "), buffered.text)
        XCTAssertEqual(direct.text, buffered.text)
        XCTAssertEqual(direct.text.components(separatedBy: "Content-Length: ").count - 1, bodies.count)
    }
}
