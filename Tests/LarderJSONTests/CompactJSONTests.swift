import LarderTestSupport
import XCTest
@testable import LarderJSON

/// `CompactJSON` recognises exactly the text the writer produces, so that
/// text it accepts can be stored without parsing and come out the same.
final class CompactJSONTests: XCTestCase {
    private func end(_ bytes: [UInt8], from start: Int = 0) -> Int? {
        bytes.withUnsafeBufferPointer { CompactJSON.valueEnd(in: $0, from: start) }
    }

    private func recognised(_ bytes: [UInt8]) -> Bool { end(bytes) == bytes.count }

    func testWhatTheWriterWritesIsRecognised() throws {
        let controls = String(decoding: Array(0..<0x20) + [0x7F], as: UTF8.self)
        let values: [JSON] = [
            .null, .bool(true), .bool(false), .int(0), .int(-12), .double(1.5),
            .string(""), .string("plain"), .string(controls), .string("quote \" backslash \\ slash /"),
            .string("ラーダー 🙂 é"), .array([]), .object(JSONObject()),
            ["a": [1, "two", ["three": .null]], "": ["": ""]],
        ]
        for v in values {
            XCTAssertTrue(recognised(v.encoded), "\(String(decoding: v.encoded, as: UTF8.self))")
        }
        for text in RoundTripTests.documents {
            XCTAssertTrue(recognised(u8(text)), text)
        }
    }

    func testTextTheWriterWouldWriteDifferentlyIsNotRecognised() {
        let texts: [[UInt8]] = [
            u8(#"{"a": 1}"#), u8(#"[1, 2]"#), u8(" 1"), u8(#""\/""#), u8(#""\u0041""#),
            u8(#""\u000a""#), u8(#""\u001F""#), u8(#""\u00e9""#), u8(#""\ud83d\ude42""#),
            u8("\"tab\there\""), u8("01"), u8("1."), u8("-"), u8("tru"), u8("[1,]"), u8(#"{"a":1,}"#),
            u8("\"") + [0xC0, 0x80] + u8("\""), u8("\"") + [0xED, 0xA0, 0x80] + u8("\""), u8("\"") + [0xE2, 0x82] + u8("\""),
            u8(String(repeating: "[", count: CompactJSON.maxDepth + 1) + String(repeating: "]", count: CompactJSON.maxDepth + 1)),
            u8(#""unterminated"#),
        ]
        for t in texts {
            XCTAssertFalse(recognised(t), String(decoding: t, as: UTF8.self))
        }
        let deepest = String(repeating: "[", count: CompactJSON.maxDepth) + String(repeating: "]", count: CompactJSON.maxDepth)
        XCTAssertTrue(recognised(u8(deepest)))
    }

    func testAValueInsideLargerTextEndsWhereItEnds() {
        let text = u8(#"{"value":{"x":[1,2]},"next":true}"#)
        XCTAssertEqual(end(text, from: 9), 20)
        XCTAssertEqual(text[20], UInt8(ascii: ","))
    }

    func testPlainStringsHaveNoEscapes() {
        func plain(_ t: [UInt8]) -> Int? { t.withUnsafeBufferPointer { CompactJSON.plainStringEnd(in: $0, from: 0) } }
        XCTAssertEqual(plain(u8(#""key-1"rest"#)), 7)
        XCTAssertEqual(plain(u8(#""é""#)), 4)
        XCTAssertNil(plain(u8(#""a\"b""#)))
        XCTAssertNil(plain(u8("\"") + [0xFF] + u8("\"")))
        XCTAssertNil(plain(u8("1")))
    }

    /// Documents with one byte replaced, inserted or deleted, at every
    /// position: whenever the scanner recognises one, the parser accepts it
    /// and writes it back byte for byte.
    func testRecognisedTextAlwaysRoundTripsThroughTheParser() throws {
        let alphabet = u8(#"{}[]",:\/ -.0123456789eEtrufalsnu"#) + [0x09, 0x0A, 0x1F, 0x7F, 0xC3, 0xA9, 0xED, 0xA0, 0x80]
        var recognisedCount = 0
        for text in RoundTripTests.documents {
            for t in oneByteVariants(of: u8(text), alphabet: alphabet) where recognised(t) {
                recognisedCount += 1
                let parsed = try JSONParser.parse(t)
                XCTAssertEqual(parsed.encoded, t, String(decoding: t, as: UTF8.self))
            }
        }
        XCTAssertGreaterThan(recognisedCount, 100, "some changed documents are still compact JSON")
    }
}
