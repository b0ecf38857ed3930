import XCTest
@testable import LarderJSON

final class WriterTests: XCTestCase {
    private func written(_ value: JSON) -> String {
        var w = JSONWriter()
        w.write(value)
        return String(decoding: w.bytes, as: UTF8.self)
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
        XCTAssertTrue(w.bytes.isEmpty)
        w.write([1, 2])
        XCTAssertEqual(String(decoding: w.bytes, as: UTF8.self), "[1,2]")
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
