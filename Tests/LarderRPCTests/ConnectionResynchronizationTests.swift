import XCTest
import LarderJSON
import LarderRPC

/// A client that writes each Content-Length message separately and waits for
/// its answer (as editors and LSP libraries do) is never stranded by one
/// mistake: the requests after it are answered with their own ids.
final class ConnectionResynchronizationTests: XCTestCase {
    private func request(_ id: Int) -> [UInt8] {
        let body = #"{"jsonrpc":"2.0","id":\#(id),"method":"echo","params":{"n":\#(id)}}"#
        return Array("Content-Length: \(body.utf8.count)\r\n\r\n\(body)".utf8)
    }

    /// The answers in `run`: results by id, and the errors answered to id null.
    private func answers(_ run: ConnectionRun) -> (results: [Int], nullErrors: [Int]) {
        var results: [Int] = []
        var nullErrors: [Int] = []
        for body in run.framedBodies() {
            guard let json = try? JSONParser.parse(body) else { continue }
            if let id = json["id"]?.numberValue?.int, json["result"] != nil { results.append(id) }
            if json["id"] == .null, let code = json.errorCode { nullErrors.append(code) }
        }
        return (results, nullErrors)
    }

    func testEveryRequestAfterAMistakeIsAnsweredWhenEachArrivesInItsOwnRead() {
        for mistake in FrameDecoderResynchronizationTests.mistakes {
            let run = runConnection(reads: [request(0), mistake.bytes, request(1), request(2)], maxMessageBytes: 4096)
            let (results, nullErrors) = answers(run)
            XCTAssertEqual(results, [0, 1, 2], "\(mistake.name): \(run.text)")
            XCTAssertEqual(nullErrors.count, mistake.errors, "\(mistake.name): \(run.text)")
        }
    }

    /// The issue's reproduction: a stray byte after a body, then five requests.
    func testAStrayByteAfterABodyStrandsNothing() {
        let run = runConnection(reads: [request(0) + Array("x".utf8)] + (1...5).map(request))
        let (results, nullErrors) = answers(run)
        XCTAssertEqual(results, [0, 1, 2, 3, 4, 5], run.text)
        XCTAssertEqual(nullErrors, [-32700], run.text)
    }

    /// A body declared far longer than it is: the next request is answered
    /// as soon as it arrives, not after the missing bytes.
    func testABodyShorterThanDeclaredIsCutAtTheNextHeader() {
        let short = Array("Content-Length: 100000\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"echo\"}".utf8)
        let run = runConnection(reads: [short, request(1)])
        let (results, nullErrors) = answers(run)
        XCTAssertEqual(results, [1], run.text)
        XCTAssertEqual(nullErrors, [-32700], run.text)
    }
}
