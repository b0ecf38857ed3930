import XCTest
import LarderRPC

final class FrameDecoderContentLengthTests: XCTestCase {
    private func framed(_ body: String, headers: [String] = []) -> String {
        (["Content-Length: \(body.utf8.count)"] + headers).joined(separator: "\r\n") + "\r\n\r\n" + body
    }

    func testContentLengthIsDetectedAndDecoded() {
        let input = bytes(framed("{\"a\":1}") + framed("[1,2]"))
        let expected: [DecodedEvent] = [.message("{\"a\":1}"), .message("[1,2]")]
        XCTAssertEqual(FrameDecoder.eventsAllAtOnce(input), expected)
        XCTAssertEqual(FrameDecoder.eventsByteByByte(input), expected)

        let d = FrameDecoder(maxMessageBytes: 1000)
        d.append(input)
        _ = d.drain()
        XCTAssertEqual(d.framing, .contentLength)
    }

    func testDetectionIsCaseInsensitive() {
        let body = "{\"a\":1}"
        for header in ["content-length", "CONTENT-LENGTH", "Content-length"] {
            let input = bytes("\(header): \(body.utf8.count)\r\n\r\n\(body)")
            let d = FrameDecoder(maxMessageBytes: 1000)
            d.append(input)
            XCTAssertEqual(d.drain(), [.message(body)], header)
            XCTAssertEqual(d.framing, .contentLength, header)
            XCTAssertEqual(FrameDecoder.eventsByteByByte(input), [.message(body)], header)
        }
    }

    func testDetectionWaitsForEnoughBytes() {
        let d = FrameDecoder(maxMessageBytes: 1000)
        d.append(bytes("Content-Len"))
        XCTAssertEqual(d.drain(), [])
        XCTAssertNil(d.framing)
        d.append(bytes("gth: 2\r\n\r\n{}"))
        XCTAssertEqual(d.drain(), [.message("{}")])
        XCTAssertEqual(d.framing, .contentLength)
    }

    func testOtherHeadersAreIgnored() {
        let input = bytes(framed("{\"a\":1}", headers: ["Content-Type: application/vscode-jsonrpc; charset=utf-8"])
            + "Content-Type: text/plain\r\nContent-Length: 2\r\nX-Other:  whatever \r\n\r\n{}")
        let expected: [DecodedEvent] = [.message("{\"a\":1}"), .message("{}")]
        XCTAssertEqual(FrameDecoder.eventsAllAtOnce(input), expected)
        XCTAssertEqual(FrameDecoder.eventsByteByByte(input), expected)
    }

    func testSpacesAndTabsAroundNamesAndValuesAreIgnored() {
        let input = bytes(framed("{}") + "Content-Type: x\r\n \tcontent-LENGTH \t:\t 2 \r\n\r\n[]" + "Content-Length:2\r\n\r\n{}")
        let expected: [DecodedEvent] = [.message("{}"), .message("[]"), .message("{}")]
        XCTAssertEqual(FrameDecoder.eventsAllAtOnce(input), expected)
        XCTAssertEqual(FrameDecoder.eventsByteByByte(input), expected)
    }

    func testBodySplitAcrossAppends() {
        let d = FrameDecoder(maxMessageBytes: 1000)
        d.append(bytes("Content-Length: 13\r\n"))
        XCTAssertEqual(d.drain(), [])
        d.append(bytes("\r\n{\"abc\":"))
        XCTAssertEqual(d.drain(), [])
        d.append(bytes("[1,2]"))
        XCTAssertEqual(d.drain(), [])
        d.append(bytes("}Content-Length: 2\r\n\r\n[]"))
        XCTAssertEqual(d.drain(), [.message("{\"abc\":[1,2]}"), .message("[]")])
        XCTAssertTrue(d.isEmpty)
    }

    func testBodyMayContainNewlines() {
        let body = "{\n\"a\" :\r\n 1\n}"
        XCTAssertEqual(FrameDecoder.eventsAllAtOnce(bytes(framed(body) + framed("[]"))), [.message(body), .message("[]")])
    }

    func testMissingContentLengthIsABadFrameAndTheNextMessageDecodes() {
        let input = bytes(framed("{\"a\":1}") + "Content-Type: text/plain\r\n\r\n" + framed("{\"b\":2}"))
        let expected: [DecodedEvent] = [.message("{\"a\":1}"), .badFrame("*"), .message("{\"b\":2}")]
        XCTAssertEqual(kinds(FrameDecoder.eventsAllAtOnce(input)), expected)
        XCTAssertEqual(kinds(FrameDecoder.eventsByteByByte(input)), expected)
        if case .badFrame(let why) = FrameDecoder.eventsAllAtOnce(input)[1] {
            XCTAssertTrue(why.contains("Content-Length"), why)
        }
    }

    func testNonNumericContentLengthIsABadFrame() {
        let input = bytes(framed("[1]") + "Content-Length: twelve\r\n\r\n" + framed("[2]"))
        XCTAssertEqual(kinds(FrameDecoder.eventsAllAtOnce(input)), [.message("[1]"), .badFrame("*"), .message("[2]")])
    }

    func testBodyOverTheLimitIsOversizedAndTheNextMessageDecodes() {
        let big = "[" + String(repeating: "7,", count: 60) + "7]"
        let input = bytes(framed(big) + framed("{\"next\":true}"))
        let expected: [DecodedEvent] = [.oversized(big.utf8.count), .message("{\"next\":true}")]
        XCTAssertEqual(FrameDecoder.eventsAllAtOnce(input, max: 100), expected)
        XCTAssertEqual(FrameDecoder.eventsByteByByte(input, max: 100), expected)
    }

    func testOversizedBodyInChunksIsDiscardedAsItArrives() {
        let d = FrameDecoder(maxMessageBytes: 100, initialCapacity: 4096)
        d.append(bytes("Content-Length: 50000\r\n\r\n"))
        // Answered from the header, at once; the body is then skipped as it comes.
        XCTAssertEqual(d.drain(), [.oversized(50000)])
        let chunk = [UInt8](repeating: UInt8(ascii: " "), count: 1000)
        for _ in 0..<49 {
            d.append(chunk)
            XCTAssertEqual(d.drain(), [])
        }
        d.append(chunk + bytes(framed("[9]")))
        var ranges: [Range<Int>] = []
        var events: [DecodedEvent] = []
        while let e = d.next() {
            if case .message(let r) = e { ranges.append(r) }
            events.append(d.convert(e))
        }
        XCTAssertEqual(events, [.message("[9]")])
        XCTAssertLessThan(ranges.first?.lowerBound ?? .max, 2000)
    }

    func testEndOfInputReturnsNothingForContentLength() {
        let d = FrameDecoder(maxMessageBytes: 1000)
        d.append(bytes("Content-Length: 10\r\n\r\n{\"a\""))
        XCTAssertEqual(d.drain(), [])
        XCTAssertNil(d.endOfInput())
    }

    func testLeadingWhitespaceBeforeTheFirstHeaderIsSkipped() {
        let input = bytes("\r\n  \n" + framed("{}"))
        XCTAssertEqual(FrameDecoder.eventsAllAtOnce(input), [.message("{}")])
        XCTAssertEqual(FrameDecoder.eventsByteByByte(input), [.message("{}")])
    }
}

extension FrameDecoderContentLengthTests {
    /// A large body's bytes are given back as soon as it is handled; the
    /// messages read with it, whole, cut in their header or in their body,
    /// come through unchanged.
    func testReleasingALargeBodyKeepsTheMessagesThatCameWithIt() {
        let d = FrameDecoder(maxMessageBytes: 8 << 20)
        let large = "\"" + String(repeating: "x", count: 5 << 20) + "\""
        d.append(bytes(framed(large) + framed("[2]") + "Content-Len"))
        XCTAssertEqual(d.next().map(d.convert), .message(large))
        d.releaseConsumed()
        XCTAssertEqual(d.drain(), [.message("[2]")])
        d.append(bytes("gth: 3\r\n\r\n[3]Content-Length: 3\r\n\r\n[4"))
        XCTAssertEqual(d.drain(), [.message("[3]")])
        d.append(bytes("]"))
        XCTAssertEqual(d.drain(), [.message("[4]")])

        d.append(bytes(framed(large) + "Content-Length: 3\r\n\r\n[5"))
        XCTAssertEqual(d.next().map(d.convert), .message(large))
        d.releaseConsumed()
        XCTAssertEqual(d.drain(), [])
        d.append(bytes("]"))
        XCTAssertEqual(d.drain(), [.message("[5]")])
    }
}
