import XCTest
import LarderJSON
import LarderSystem

/// Hostile input must never crash the server: each case is followed by a
/// valid request that must still get its proper answer.
final class BadInputTests: XCTestCase {
    /// Starts a server (speaking lines: a valid request goes first), sends
    /// `bad` and a newline, then a probe; returns the replies that came before
    /// the probe's answer after checking that each is an error with id null.
    @discardableResult
    private func assertSurvives(_ bad: [UInt8], arguments: [String] = [], timeout: Double = 30,
                                file: StaticString = #filePath, line: UInt = #line) throws -> [JSON] {
        let larder = try startLarder(arguments, file: file, line: line)
        assertStillServing(larder, id: "before", file: file, line: line)
        XCTAssertTrue(larder.send(bytes: bad + [0x0A]), "the server stopped reading", file: file, line: line)
        larder.send(#"{"jsonrpc":"2.0","id":"after","method":"no.such.method"}"#)
        let replies = larder.readUntilResponse(id: "after", timeout: timeout, file: file, line: line)
        XCTAssertEqual(replies.last?["id"], "after", file: file, line: line)
        XCTAssertEqual(replies.last?.errorCode, -32601, file: file, line: line)
        // A batch is answered with an array: check its members.
        for reply in replies.dropLast().flatMap({ $0.arrayValue ?? [$0] }) {
            XCTAssertEqual(reply["jsonrpc"], "2.0", file: file, line: line)
            XCTAssertEqual(reply["id"], .null, "\(reply)", file: file, line: line)
            XCTAssertNotNil(reply.errorCode, "\(reply)", file: file, line: line)
        }
        assertCleanExit(larder, file: file, line: line)
        return Array(replies.dropLast())
    }

    func testMalformedJSON() throws {
        for text in ["{", "}", "{\"jsonrpc\":\"2.0\",", "[1,2", "{'a':1}", "nul", "{\"a\":1}}", "\"unterminated", "01", "{\"a\" 1}"] {
            let errors = try assertSurvives(Array(text.utf8))
            XCTAssertEqual(errors.map(\.errorCode), [-32700], text)
        }
    }

    func testInvalidUTF8() throws {
        let errors = try assertSurvives([0xFF, 0xFE])
        XCTAssertEqual(errors.map(\.errorCode), [-32700])
        let inString = Array(#"{"jsonrpc":"2.0","id":1,"method":""#.utf8) + [0xC3, 0x28, 0xED, 0xA0, 0x80] + Array(#""}"#.utf8)
        XCTAssertEqual(try assertSurvives(inString).map(\.errorCode), [-32700])
        let overlong = Array(#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"k":""#.utf8) + [0xC0, 0xAF] + Array(#""}}"#.utf8)
        XCTAssertEqual(try assertSurvives(overlong).map(\.errorCode), [-32700])
    }

    func testDeepNesting() throws {
        let arrays = Array(String(repeating: "[", count: 10_000).utf8)
        XCTAssertEqual(try assertSurvives(arrays).map(\.errorCode), [-32700])
        let closed = Array((String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)).utf8)
        XCTAssertEqual(try assertSurvives(closed).map(\.errorCode), [-32700])
        let objects = Array((String(repeating: "{\"a\":", count: 10_000) + "1" + String(repeating: "}", count: 10_000)).utf8)
        XCTAssertEqual(try assertSurvives(objects).map(\.errorCode), [-32700])
    }

    func testNestingWithinTheLimitInsideParams() throws {
        let larder = try startLarder()
        let params = String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
        larder.send(#"{"jsonrpc":"2.0","id":1,"method":"no.such.method","params":{"deep":\#(params)}}"#)
        XCTAssertEqual(larder.readMessage()?.errorCode, -32601)
        assertCleanExit(larder)
    }

    func testBinaryGarbage() throws {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var garbage: [UInt8] = []
        for _ in 0..<16_384 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            garbage.append(UInt8(truncatingIfNeeded: state >> 56))
        }
        let errors = try assertSurvives(garbage)
        XCTAssertFalse(errors.isEmpty)
    }

    func testNULBytesAndControlCharacters() throws {
        let bytes: [UInt8] = [0x00, 0x00, 0x01, 0x1B, 0x5B, 0x32, 0x4A, 0x7F, 0x08]
        XCTAssertEqual(try assertSurvives(bytes).map(\.errorCode), [-32700])
        let inString = Array(#"{"jsonrpc":"2.0","id":1,"method":"a"#.utf8) + [0x00] + Array(#"b"}"#.utf8)
        XCTAssertEqual(try assertSurvives(inString).map(\.errorCode), [-32700])
    }

    func testValidJSONThatIsNotAMessage() throws {
        for text in ["null", "42", "\"hi\"", "true", "{}", "[[]]", "{\"jsonrpc\":\"2.0\"}"] {
            let errors = try assertSurvives(Array(text.utf8))
            XCTAssertFalse(errors.isEmpty, text)
            for e in errors.flatMap({ $0.arrayValue ?? [$0] }) { XCTAssertEqual(e.errorCode, -32600, text) }
        }
    }

    func testHugeNumbersAndStrings() throws {
        let larder = try startLarder()
        let huge = String(repeating: "9", count: 100_000)
        larder.send(#"{"jsonrpc":"2.0","id":\#(huge),"method":"no.such.method","params":{"n":1e999999,"s":"\#(String(repeating: "\\u00e9", count: 50_000))"}}"#)
        let reply = larder.readMessage(timeout: 30)
        XCTAssertEqual(reply?.errorCode, -32601)
        XCTAssertEqual(reply?["id"]?.numberValue?.literal, huge, "the id is echoed byte for byte")
        assertStillServing(larder)
        assertCleanExit(larder)
    }

    func testLineOverAConfiguredLimit() throws {
        let line = Array(#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"s":""#.utf8)
            + [UInt8](repeating: UInt8(ascii: "a"), count: 20_000) + Array(#""}}"#.utf8)
        let errors = try assertSurvives(line, arguments: ["--max-message-bytes", "1000"])
        XCTAssertEqual(errors.map(\.errorCode), [-32600])
        XCTAssertEqual(errors.first?["error"]?["data"]?["limit"], 1000)
        XCTAssertEqual(errors.first?["error"]?["data"]?["size"], .int(line.count))
    }

    /// A 100 MB line, over the default 64 MB limit, streamed from a background
    /// thread while the test reads: refused with -32600 without being held in
    /// memory, and the next request is served.
    func testHundredMegabyteLine() throws {
        let larder = try startLarder()
        assertStillServing(larder, id: "before")
        let prefix = Array(#"{"jsonrpc":"2.0","id":"big","method":"no.such.method","params":{"s":""#.utf8)
        let suffix = Array(#""}}"#.utf8) + [0x0A]
        let filler = 100 * 1024 * 1024
        let started = MonotonicClock.seconds()
        let writer = larder.sendInBackground(prefix: prefix, filler: UInt8(ascii: "x"), fillerCount: filler, suffix: suffix)
        let refused = larder.readMessage(timeout: 120)
        XCTAssertEqual(writer.wait(timeout: 120), true, "the server stopped reading; stderr: \(larder.stderrText)")
        XCTAssertEqual(refused?["id"], .null)
        XCTAssertEqual(refused?.errorCode, -32600)
        XCTAssertEqual(refused?["error"]?["data"]?["size"], .int(prefix.count + filler + suffix.count - 1))
        XCTAssertEqual(refused?["error"]?["data"]?["limit"], .int(64 << 20))
        assertStillServing(larder, id: "after")
        assertCleanExit(larder)
        print("100 MB line refused in \(Int((MonotonicClock.seconds() - started) * 1000)) ms")
    }

    func testHalfALineThenEndOfInput() throws {
        let larder = try startLarder()
        assertStillServing(larder)
        larder.send(bytes: Array(#"{"jsonrpc":"2.0","id":1,"meth"#.utf8))
        larder.closeStdin()
        XCTAssertEqual(larder.readMessage()?.errorCode, -32700)
        XCTAssertEqual(larder.waitForExit(), 0)
    }

    func testClientThatStopsReading() throws {
        let larder = try startLarder()
        // Many requests whose answers nobody reads, then stdout is abandoned entirely.
        let burst = (1...2000).map { #"{"jsonrpc":"2.0","id":\#($0),"method":"no.such.method"}"# }.joined(separator: "\n")
        XCTAssertTrue(larder.send(burst))
        larder.closeStdout()
        larder.closeStdin()
        // The write fails with EPIPE (SIGPIPE is ignored): the server stops quietly.
        XCTAssertEqual(larder.waitForExit(timeout: 30), 0, larder.stderrText)
    }
}
