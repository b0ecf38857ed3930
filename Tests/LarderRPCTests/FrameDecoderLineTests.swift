#if canImport(Glibc)
import Glibc
#endif
import XCTest
import LarderRPC

final class FrameDecoderLineTests: XCTestCase {
    func testLinesAllAtOnceAndByteByByteGiveTheSameEvents() {
        let input = bytes("{\"a\":1}\n[1,2,3]\n\"text with spaces\"\n{\"b\":{\"c\":null}}\n")
        let expected: [DecodedEvent] = [
            .message("{\"a\":1}"), .message("[1,2,3]"), .message("\"text with spaces\""), .message("{\"b\":{\"c\":null}}"),
        ]
        XCTAssertEqual(FrameDecoder.eventsAllAtOnce(input), expected)
        XCTAssertEqual(FrameDecoder.eventsByteByByte(input), expected)
    }

    func testFramingIsLinesForJSONInput() {
        let d = FrameDecoder(maxMessageBytes: 1000)
        XCTAssertNil(d.framing)
        d.append(bytes("{\"a\":1}\n"))
        XCTAssertEqual(d.drain(), [.message("{\"a\":1}")])
        XCTAssertEqual(d.framing, .lines)
        XCTAssertTrue(d.isEmpty)
    }

    func testCRLFIsTolerated() {
        let input = bytes("{\"a\":1}\r\n{\"b\":2}\r\n")
        let expected: [DecodedEvent] = [.message("{\"a\":1}"), .message("{\"b\":2}")]
        XCTAssertEqual(FrameDecoder.eventsAllAtOnce(input), expected)
        XCTAssertEqual(FrameDecoder.eventsByteByByte(input), expected)
    }

    func testBlankLinesAreIgnored() {
        let input = bytes("\n\n{\"a\":1}\n\n   \n\t\r\n\r\n{\"b\":2}\n\n")
        let expected: [DecodedEvent] = [.message("{\"a\":1}"), .message("{\"b\":2}")]
        XCTAssertEqual(FrameDecoder.eventsAllAtOnce(input), expected)
        XCTAssertEqual(FrameDecoder.eventsByteByByte(input), expected)
    }

    func testIncompleteLineWaitsForMoreBytes() {
        let d = FrameDecoder(maxMessageBytes: 1000)
        d.append(bytes("{\"a\":"))
        XCTAssertEqual(d.drain(), [])
        d.append(bytes("1}"))
        XCTAssertEqual(d.drain(), [])
        d.append(bytes("\n{\"b\""))
        XCTAssertEqual(d.drain(), [.message("{\"a\":1}")])
        d.append(bytes(":2}\n"))
        XCTAssertEqual(d.drain(), [.message("{\"b\":2}")])
    }

    func testLongLineIsOversizedAndTheNextLineStillDecodes() {
        let long = "[" + String(repeating: "1,", count: 100) + "1]"
        let input = bytes(long + "\n{\"ok\":true}\n")
        let expected: [DecodedEvent] = [.oversized(long.utf8.count), .message("{\"ok\":true}")]
        XCTAssertEqual(FrameDecoder.eventsAllAtOnce(input, max: 50), expected)
        XCTAssertEqual(FrameDecoder.eventsByteByByte(input, max: 50), expected)
    }

    func testLineOfExactlyTheLimitIsAccepted() {
        let exact = "\"" + String(repeating: "x", count: 48) + "\""
        XCTAssertEqual(exact.utf8.count, 50)
        XCTAssertEqual(FrameDecoder.eventsAllAtOnce(bytes(exact + "\n"), max: 50), [.message(exact)])
        XCTAssertEqual(FrameDecoder.eventsByteByByte(bytes(exact + "\n"), max: 50), [.message(exact)])
        XCTAssertEqual(FrameDecoder.eventsAllAtOnce(bytes(exact + "x\n"), max: 50), [.oversized(51)])
    }

    func testOversizedLineInManyChunksIsDiscardedAsItArrives() {
        let d = FrameDecoder(maxMessageBytes: 100, initialCapacity: 4096)
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 1000)
        for _ in 0..<200 {
            d.append(chunk)
            // Nothing to report until the line ends, and nothing kept meanwhile.
            XCTAssertEqual(d.drain(), [])
            XCTAssertFalse(d.isEmpty, "still discarding")
        }
        // The end of the long line and the next message arrive together.
        d.append(bytes("xyz\n{\"ok\":1}\n"))
        var ranges: [Range<Int>] = []
        var events: [DecodedEvent] = []
        while let e = d.next() {
            if case .message(let r) = e { ranges.append(r) }
            events.append(d.convert(e))
        }
        // The size counts every byte that went by, though they were never held together.
        XCTAssertEqual(events, [.oversized(200 * 1000 + 3), .message("{\"ok\":1}")])
        // Had the 200 KB line been buffered, the next message would sit after it;
        // it sits at the front of the buffer because each chunk was dropped on arrival.
        XCTAssertEqual(ranges.count, 1)
        XCTAssertLessThan(ranges.first?.lowerBound ?? .max, 100)
        XCTAssertTrue(d.isEmpty)
    }

    func testOversizedUnterminatedLineKeepsDiscardingUntilNewline() {
        let d = FrameDecoder(maxMessageBytes: 10)
        d.append(bytes(String(repeating: "a", count: 25)))
        XCTAssertEqual(d.drain(), [])
        d.append(bytes(String(repeating: "b", count: 25)))
        XCTAssertEqual(d.drain(), [])
        d.append(bytes("\n[1]\n"))
        XCTAssertEqual(d.drain(), [.oversized(50), .message("[1]")])
    }

    func testEndOfInputReturnsAnUnterminatedLastLine() {
        let d = FrameDecoder(maxMessageBytes: 1000)
        d.append(bytes("{\"a\":1}\n{\"b\":2}"))
        XCTAssertEqual(d.drain(), [.message("{\"a\":1}")])
        XCTAssertEqual(d.endOfInput().map(d.convert), .message("{\"b\":2}"))
        XCTAssertNil(d.endOfInput())
        XCTAssertTrue(d.isEmpty)
    }

    func testEndOfInputDropsATrailingCR() {
        let d = FrameDecoder(maxMessageBytes: 1000)
        d.append(bytes("{\"b\":2}\r"))
        XCTAssertEqual(d.drain(), [])
        XCTAssertEqual(d.endOfInput().map(d.convert), .message("{\"b\":2}"))
    }

    func testEndOfInputWithNothingPendingOrOnlyBlanks() {
        let d = FrameDecoder(maxMessageBytes: 1000)
        d.append(bytes("{\"a\":1}\n"))
        XCTAssertEqual(d.drain(), [.message("{\"a\":1}")])
        XCTAssertNil(d.endOfInput())

        let blanks = FrameDecoder(maxMessageBytes: 1000)
        blanks.append(bytes("[1]\n   "))
        XCTAssertEqual(blanks.drain(), [.message("[1]")])
        XCTAssertNil(blanks.endOfInput())
    }

    func testEndOfInputAcceptsALastLineOfExactlyTheLimit() {
        let d = FrameDecoder(maxMessageBytes: 10)
        d.append(bytes("[1]\n[22222,33]"))
        XCTAssertEqual(d.drain(), [.message("[1]")])
        // 10 bytes exactly: still fine.
        XCTAssertEqual(d.endOfInput().map(d.convert), .message("[22222,33]"))
    }

    func testReadFromADescriptor() throws {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        defer { close(fds[0]) }
        let text = bytes("{\"a\":1}\n{\"b\":2}\n")
        XCTAssertEqual(text.withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) }, text.count)
        close(fds[1])
        let d = FrameDecoder(maxMessageBytes: 1000)
        XCTAssertEqual(d.read(from: fds[0]), text.count)
        XCTAssertEqual(d.drain(), [.message("{\"a\":1}"), .message("{\"b\":2}")])
        XCTAssertEqual(d.read(from: fds[0]), 0)
    }
}

extension FrameDecoderLineTests {
    func testABufferGrownForALargeMessageShrinksOnceConsumed() {
        let decoder = FrameDecoder(maxMessageBytes: 1 << 20, initialCapacity: 64)
        let large = "[" + String(repeating: "1,", count: 500) + "1]"
        decoder.append(Array((large + "\n{\"partial\"").utf8))
        XCTAssertEqual(decoder.drain(), [.message(large)])
        decoder.shrink()
        decoder.append(Array(":1}\n".utf8))
        XCTAssertEqual(decoder.drain(), [.message("{\"partial\":1}")], "unconsumed bytes survive a shrink request")
        decoder.shrink()
        decoder.append(Array("{\"after\":true}\n".utf8))
        XCTAssertEqual(decoder.drain(), [.message("{\"after\":true}")])
    }
}

extension FrameDecoderLineTests {
    /// A buffer grown past `keptUntilPause` is given back at the first read
    /// that finds it empty; what comes before and after comes through whole,
    /// the message after it arriving over several reads.
    func testMessagesAroundOneOverTheKeptSizeComeThroughWhole() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("frames-\(getpid()).jsonl").path
        defer { unlink(path) }
        // Up to its newline the input fills 80 reads exactly: the next one finds the buffer empty.
        let large = "\"" + String(repeating: "x", count: 80 * FrameDecoder.chunk - 7) + "\""
        let after = "[" + String(repeating: "2,", count: 100_000) + "2]"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(("[1]\n" + large + "\n" + after + "\n").utf8)))
        let fd = open(path, O_RDONLY)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        let d = FrameDecoder(maxMessageBytes: 8 << 20)
        var seen: [DecodedEvent] = []
        while d.read(from: fd) > 0 {
            while let e = d.next() {
                let event = d.convert(e)
                seen.append(event == .message(large) ? .message("large") : event == .message(after) ? .message("after") : event)
            }
        }
        XCTAssertEqual(seen, [.message("[1]"), .message("large"), .message("after")])
    }
}

extension FrameDecoderLineTests {
    /// A large message's bytes are given back as soon as it is handled; the
    /// lines read with it, whole or in part, come through unchanged.
    func testReleasingALargeMessageKeepsTheLinesThatCameWithIt() {
        let d = FrameDecoder(maxMessageBytes: 8 << 20)
        let large = "\"" + String(repeating: "x", count: 5 << 20) + "\""
        d.append(Array((large + "\n[2]\n[3").utf8))
        XCTAssertEqual(d.next().map(d.convert), .message(large))
        d.releaseConsumed()
        XCTAssertEqual(d.drain(), [.message("[2]")])
        d.append(Array("]\n".utf8))
        XCTAssertEqual(d.drain(), [.message("[3]")])
    }
}
