import XCTest
@testable import LarderCore
import LarderJSON

final class Base64Tests: XCTestCase {
    func testRoundTripsEveryLengthAndByte() {
        for length in 0..<70 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            XCTAssertEqual(Base64.decode(Base64.encode(bytes)), bytes)
        }
        let all = (0...255).map(UInt8.init)
        XCTAssertEqual(Base64.decode(Base64.encode(all)), all)
    }

    func testKnownVectors() {
        // RFC 4648, section 10.
        let vectors = ["": "", "f": "Zg==", "fo": "Zm8=", "foo": "Zm9v", "foob": "Zm9vYg==", "fooba": "Zm9vYmE=", "foobar": "Zm9vYmFy"]
        for (plain, encoded) in vectors {
            XCTAssertEqual(Base64.encode(Array(plain.utf8)), encoded)
            XCTAssertEqual(Base64.decode(encoded), Array(plain.utf8))
        }
    }

    func testEncodesIntoAWriterAndDecodesBorrowedText() {
        for length in 0..<10 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 91 &+ 3) }
            var w = JSONWriter(capacity: 16)
            w.writeASCII("[")
            bytes.withUnsafeBufferPointer { Base64.encode($0, into: &w) }
            w.writeASCII("]")
            XCTAssertEqual(String(decoding: w.copiedBytes, as: UTF8.self), "[" + Base64.encode(bytes) + "]")
            let text = Array(Base64.encode(bytes).utf8)
            XCTAssertEqual(text.withUnsafeBufferPointer { Base64.decode($0) }, bytes)
        }
        XCTAssertNil(Array("Zm9v!A==".utf8).withUnsafeBufferPointer { Base64.decode($0) })
    }

    func testRejectsWhatIsNotBase64() {
        for bad in ["Zg=", "Zm9v!", "Z===", "Zm 9v", "=Zm9", "Zg==Zg==", "Zm9v\n", "Zm9v====", "Zm=v", "Zg=a", "\u{E9}AA"] {
            XCTAssertNil(Base64.decode(bad), bad)
        }
    }

    func testDecodesInPlaceOrLeavesTheTextAlone() {
        for length in 0..<40 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 53 &+ 7) }
            var text = Array(Base64.encode(bytes).utf8)
            let count = text.withUnsafeMutableBufferPointer { Base64.decodeInPlace($0) }
            XCTAssertEqual(count, length)
            XCTAssertEqual(Array(text.prefix(count ?? 0)), bytes)
        }
        for bad in ["Zg=", "Zm9v!AAA", "Zg==Zg==", "Zm=v"] {
            var text = Array(bad.utf8)
            XCTAssertNil(text.withUnsafeMutableBufferPointer { Base64.decodeInPlace($0) }, bad)
            XCTAssertEqual(text, Array(bad.utf8), "text that is not base64 is left as it was")
        }
    }
}
