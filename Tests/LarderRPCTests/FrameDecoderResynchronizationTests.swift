import LarderTestSupport
import XCTest
import LarderJSON
import LarderRPC

/// Content-Length framing recovers from anything a client may send by
/// mistake: after it, every well-formed message is decoded, whichever way the
/// bytes are split into reads, and the mistake is answered exactly once.
final class FrameDecoderResynchronizationTests: XCTestCase {
    private static func request(_ id: Int) -> [UInt8] {
        framed(#"{"jsonrpc":"2.0","id":\#(id),"method":"cache.list"}"#)
    }

    private static func framed(_ body: String) -> [UInt8] {
        bytes("Content-Length: \(body.utf8.count)\r\n\r\n\(body)")
    }

    /// A request whose Content-Length is off by `delta`.
    private static func misframed(_ delta: Int) -> [UInt8] {
        let body = #"{"jsonrpc":"2.0","id":99,"method":"cache.list"}"#
        return bytes("Content-Length: \(body.utf8.count + delta)\r\n\r\n\(body)")
    }

    /// What a client may send by mistake, and how many errors it is answered with.
    static let mistakes: [(name: String, bytes: [UInt8], errors: Int)] = [
        ("a stray byte", bytes("x"), 1),
        ("stray text and a line break", bytes("xyz\r\n"), 1),
        ("binary bytes", [0xFF, 0x00, 0x0D, 0xC0], 1),
        ("a body one byte longer than declared", misframed(-1), 1),
        ("a body one byte shorter than declared", misframed(1), 1),
        ("a body twenty bytes shorter than declared", misframed(20), 1),
        ("a body far shorter than declared", misframed(500), 1),
        ("a negative length", bytes("Content-Length: -1\r\n\r\n{}"), 1),
        ("a length that is not a number", bytes("Content-Length: abc\r\n\r\n{\"a\":1}"), 1),
        ("a length too large for any integer", bytes("Content-Length: 99999999999999999999999\r\n\r\n{}"), 1),
        ("a length with a sign", bytes("Content-Length: +46\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":98,\"method\":\"cache.list\"}"), 1),
        ("an empty length", bytes("Content-Length:\r\n\r\n{}"), 1),
        ("no Content-Length", bytes("Content-Type: text/plain\r\n\r\n{\"a\":1}"), 1),
        ("a header line without a colon", bytes("hello\r\n\r\n{}"), 1),
        ("a header line without a colon after Content-Length", bytes("Content-Length: 2\r\nhello\r\n\r\n{}"), 1),
        ("a header block cut short", bytes("Content-Length: 46\r\n"), 1),
        ("a header block cut short in its name", bytes("Content-Len"), 1),
        ("a header block cut short after the colon", bytes("Content-Length: "), 1),
        ("a header block cut short after its first line", bytes("Content-Length: 10000\r\nX"), 1),
        ("two Content-Length lines", bytes("Content-Length: 3\r\nContent-Length: 3\r\n"), 1),
        ("a header with no body", bytes("Content-Length: 46\r\n\r\n"), 1),
        ("a body cut short", bytes("Content-Length: 46\r\n\r\n{\"jsonrpc\":\"2.0\","), 1),
        ("an empty body", bytes("Content-Length: 0\r\n\r\n"), 1),
        ("a body that is not JSON", framed("{oops"), 1),
        ("a bad header whose body names Content-Length",
         bytes("Content-Length: x\r\n\r\n{\"text\":\"Content-Length: 12\"}"), 1),
        ("a line of JSON", bytes("{\"jsonrpc\":\"2.0\",\"id\":98,\"method\":\"cache.list\"}\n"), 1),
        ("a header block over the limit", bytes("X-Pad: " + String(repeating: "a", count: 9000) + "\r\n\r\n{}"), 1),
        ("header text over the limit without a blank line", bytes(String(repeating: "a", count: 20_000)), 1),
        ("header lines over the limit without a blank line",
         bytes(String(repeating: "Content-Length: 5\r\nX-Pad: y\r\n", count: 700)), 1),
        ("a body over the size limit", bytes("Content-Length: 5000\r\n\r\n") + [UInt8](repeating: 0x20, count: 5000), 1),
        ("a length far over the size limit", bytes("Content-Length: 999999999999\r\n\r\n{}"), 1),
        ("stray line breaks", bytes("\r\n\n\r"), 0),
        ("a header line before the next message's", bytes("X-Trace: 1\r\n"), 0),
    ]

    /// The errors and the ids of the requests decoded from `chunks`, each appended as one read.
    /// Mirrors `Connection`: a body that is not JSON is an error too, and the decoder is told.
    private static func decode(_ chunks: [[UInt8]], maxMessageBytes: Int = 4096) -> (ids: [Int], errors: Int) {
        let decoder = FrameDecoder(maxMessageBytes: maxMessageBytes, initialCapacity: 64)
        var ids: [Int] = []
        var errors = 0
        for chunk in chunks {
            decoder.append(chunk)
            while let event = decoder.next() {
                switch event {
                case .message(let range):
                    guard let json = try? JSONParser.parse(decoder.bytes(range)) else {
                        errors += 1
                        decoder.lastBodyIsNotJSON()
                        continue
                    }
                    if let id = json["id"]?.numberValue?.int { ids.append(id) } else { errors += 1 }
                case .oversized, .badFrame:
                    errors += 1
                }
            }
        }
        return (ids, errors)
    }

    /// The ways a mistake and the requests around it may be split into reads.
    private static func splits(of mistake: [UInt8]) -> [(name: String, chunks: [[UInt8]])] {
        let after = [request(1), request(2), request(3)]
        var splits: [(String, [[UInt8]])] = [
            ("at the end of a read", [request(0) + mistake] + after),
            ("in a read of its own", [request(0), mistake] + after),
            ("byte by byte", [request(0)] + mistake.map { [$0] } + after),
            ("in halves", [request(0), Array(mistake.prefix(mistake.count / 2)), Array(mistake.dropFirst(mistake.count / 2))] + after),
            ("followed by a request byte by byte", [request(0), mistake] + request(1).map { [$0] } + [request(2), request(3)]),
            ("all in one read", [request(0) + mistake + after.joined()]),
        ]
        // Random cuts through everything.
        var random = SeededRandom(seed: UInt64(mistake.count))
        let whole = request(0) + mistake + after.joined()
        for seed in 0..<8 {
            var chunks: [[UInt8]] = []
            var k = 0
            while k < whole.count {
                let n = 1 + Int(random.next() % UInt64(seed == 0 ? 3 : 200))
                chunks.append(Array(whole[k..<min(whole.count, k + n)]))
                k += n
            }
            splits.append(("cut at random (\(seed))", chunks))
        }
        return splits
    }

    func testEveryRequestAfterAMistakeIsDecodedAndTheMistakeAnsweredOnce() {
        for mistake in Self.mistakes {
            for split in Self.splits(of: mistake.bytes) {
                let (ids, errors) = Self.decode(split.chunks)
                XCTAssertEqual(ids, [0, 1, 2, 3], "\(mistake.name), \(split.name)")
                XCTAssertEqual(errors, mistake.errors, "\(mistake.name), \(split.name)")
            }
        }
    }

    /// The issue's case: each message in its own read, as an editor sends them.
    func testAStrayByteAfterABodyCostsOneErrorAndNothingElse() {
        let (ids, errors) = Self.decode([Self.request(0) + bytes("x")] + (1...5).map(Self.request))
        XCTAssertEqual(ids, [0, 1, 2, 3, 4, 5])
        XCTAssertEqual(errors, 1)
    }

    /// Bytes skipped while resynchronising belong to the mistake that started
    /// it: after a bad header block the length of its body is unknown, so a
    /// second bad block before the next readable header is skipped with it.
    /// A readable header block ends the skipping; a mistake after it is answered again.
    func testMistakesInARowAreAnsweredOncePerStretchSkipped() {
        let row = [bytes("Content-Length: abc\r\n\r\n{}"), bytes("Content-Type: x\r\n\r\n{}"), Self.misframed(3)]
        for split in [row, [Array(row.joined())], row.joined().map { [$0] }] {
            let (ids, errors) = Self.decode([Self.request(0)] + split + [Self.request(1)])
            XCTAssertEqual(ids, [0, 1])
            XCTAssertEqual(errors, 2)
        }
    }

    /// A well-formed message is never held back waiting for bytes a wrong length promised.
    func testAWellFormedMessageInTheBufferIsNotKeptWaiting() {
        let decoder = FrameDecoder(maxMessageBytes: 1 << 20)
        decoder.append(Self.misframed(100_000))
        XCTAssertEqual(decoder.drain(), [])
        decoder.append(Self.request(1))
        let events = decoder.drain()
        XCTAssertEqual(events.count, 2, "\(events)")
        XCTAssertEqual(events.last, .message(#"{"jsonrpc":"2.0","id":1,"method":"cache.list"}"#))
    }

    /// Megabytes of header text, streamed: one error, however many reads it takes.
    func testStreamedHeaderTextIsOneError() {
        let decoder = FrameDecoder(maxMessageBytes: 1 << 20, initialCapacity: 64 * 1024)
        decoder.append(bytes("Content-Length: 5\r\nX-Pad: "))
        var events: [DecodedEvent] = []
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 64 * 1024)
        for _ in 0..<40 {
            decoder.append(chunk)
            events += decoder.drain()
        }
        decoder.append(Self.request(7))
        events += decoder.drain()
        XCTAssertEqual(kinds(events), [.badFrame("*"), .message(#"{"jsonrpc":"2.0","id":7,"method":"cache.list"}"#)])
    }

    func testAHeaderBlockOverTheLimitIsRefusedEvenWhenItArrivesWhole() {
        let pad = "X-Pad: " + String(repeating: "a", count: 8200)
        let input = bytes("Content-Length: 2\r\n\(pad)\r\n\r\n{}") + Self.request(1)
        let expected: [DecodedEvent] = [.badFrame("header block longer than 8192 bytes"),
                                        .message(#"{"jsonrpc":"2.0","id":1,"method":"cache.list"}"#)]
        XCTAssertEqual(FrameDecoder.eventsAllAtOnce(input), expected)
        XCTAssertEqual(FrameDecoder.eventsByteByByte(input), expected)
    }

    func testAHeaderBlockOfExactlyTheLimitIsAccepted() {
        let head = "Content-Length: 2\r\nX-Pad: "
        let pad = String(repeating: "a", count: 8192 - head.utf8.count - 4)
        let input = bytes(head + pad + "\r\n\r\n{}")
        XCTAssertEqual(FrameDecoder.eventsAllAtOnce(input), [.message("{}")])
        XCTAssertEqual(FrameDecoder.eventsByteByByte(input), [.message("{}")])
    }
}
