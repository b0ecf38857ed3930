import XCTest
@testable import LarderJSON

final class WriterTests: XCTestCase {
    private func written(_ value: JSON) -> String {
        var w = JSONWriter()
        w.write(value)
        return w.withBytes { String(decoding: $0, as: UTF8.self) }
    }

    func testEscapesOnlyWhatJSONRequires() {
        XCTAssertEqual(written(.string("a\"b\\c")), #""a\"b\\c""#)
        XCTAssertEqual(written(.string("line\nfeed\ttab\r\u{08}\u{0C}")), #""line\nfeed\ttab\r\b\f""#)
        XCTAssertEqual(written(.string("\u{01}\u{1F}\u{00}")), #""\u0001\u001f\u0000""#)
        XCTAssertEqual(written(.string("a/b é 🙂")), "\"a/b é 🙂\"", "slash and non-ASCII are written as they are")
    }

    func testOutputIsCompactAndKeepsMemberOrder() {
        let value: JSON = ["z": 1, "a": [true, false, nil], "m": ["k": "v"]]
        XCTAssertEqual(written(value), #"{"z":1,"a":[true,false,null],"m":{"k":"v"}}"#)
    }

    func testResetKeepsTheWriterUsable() {
        var w = JSONWriter()
        w.write(["a": 1])
        w.reset()
        XCTAssertTrue(w.isEmpty)
        w.write([1, 2])
        XCTAssertEqual(w.withBytes { String(decoding: $0, as: UTF8.self) }, "[1,2]")
    }

    func testFragmentsAreSplicedVerbatim() {
        let fragment = JSONFragment(validJSON: Array(#"{"b":2.50,"a":[1]}"#.utf8))
        XCTAssertEqual(written(["value": .fragment(fragment)]), #"{"value":{"b":2.50,"a":[1]}}"#)
    }

    func testEveryControlCharacterRoundTrips() throws {
        let text = String((0..<32).map { Character(Unicode.Scalar(UInt8($0))) })
        XCTAssertEqual(try JSONParser.parse(written(.string(text))), .string(text))
    }
}

final class WriterStorageTests: XCTestCase {
    /// Every length a piece can have, across the short-copy cases and growth.
    func testPiecesOfEveryLengthArriveIntact() {
        var w = JSONWriter(capacity: 1)
        var expected: [UInt8] = []
        for n in 0...80 {
            let piece = (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ n) }
            w.writeRaw(piece)
            expected += piece
            w.append(0xFF)
            expected.append(0xFF)
        }
        XCTAssertEqual(w.copiedBytes, expected)
        XCTAssertEqual(w.count, expected.count)
        XCTAssertGreaterThanOrEqual(w.capacity, expected.count)
    }

    func testIntegersAreWrittenInDecimal() {
        for value in [0, 7, -7, 10, 99, 100, -100, 1_234_567_890, Int.max, Int.min] {
            var w = JSONWriter()
            w.writeInt(value)
            XCTAssertEqual(w.withBytes { String(decoding: $0, as: UTF8.self) }, String(value))
        }
    }

    func testTruncateTakesBackWhatWasWrittenAfterAPoint() {
        var w = JSONWriter()
        w.writeASCII("[1,")
        let mark = w.count
        w.writeASCII("2,3")
        w.truncate(to: mark)
        w.writeASCII("4]")
        XCTAssertEqual(w.withBytes { String(decoding: $0, as: UTF8.self) }, "[1,4]")
        XCTAssertEqual(w.withBytes(from: 1) { String(decoding: $0, as: UTF8.self) }, "1,4]")
    }

    func testInPlaceWritesCountOnlyWhatWasWritten() {
        var w = JSONWriter(capacity: 2)
        w.append(upTo: 30) { out in
            for k in 0..<3 { out[k] = UInt8(ascii: "a") + UInt8(k) }
            return 3
        }
        w.writeASCII("!")
        XCTAssertEqual(w.withBytes { String(decoding: $0, as: UTF8.self) }, "abc!")
    }
}
