import XCTest
import LarderRPC

/// A decoder event with the message body copied out (ranges die on the next append).
enum DecodedEvent: Equatable, CustomStringConvertible {
    case message(String)
    case oversized(Int)
    case badFrame(String)

    var description: String {
        switch self {
        case .message(let s): return "message(\(s))"
        case .oversized(let n): return "oversized(\(n))"
        case .badFrame(let why): return "badFrame(\(why))"
        }
    }

    /// True for any `.badFrame`, whatever its explanation.
    var isBadFrame: Bool {
        if case .badFrame = self { return true }
        return false
    }
}

extension FrameDecoder {
    /// Every event available now.
    func drain() -> [DecodedEvent] {
        var events: [DecodedEvent] = []
        while let e = next() { events.append(convert(e)) }
        return events
    }

    func convert(_ e: Event) -> DecodedEvent {
        switch e {
        case .message(let range): return .message(String(decoding: bytes(range), as: UTF8.self))
        case .oversized(let size): return .oversized(size)
        case .badFrame(let why): return .badFrame(why)
        }
    }

    /// Appends `input` in one piece and drains.
    static func eventsAllAtOnce(_ input: [UInt8], max: Int = 1 << 20) -> [DecodedEvent] {
        let d = FrameDecoder(maxMessageBytes: max)
        d.append(input)
        return d.drain()
    }

    /// Appends `input` one byte at a time, draining after each byte.
    static func eventsByteByByte(_ input: [UInt8], max: Int = 1 << 20) -> [DecodedEvent] {
        let d = FrameDecoder(maxMessageBytes: max)
        var events: [DecodedEvent] = []
        for b in input {
            d.append([b])
            events += d.drain()
        }
        return events
    }
}

func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

/// Replaces a `.badFrame` explanation by a fixed one so event lists compare on kind alone.
func kinds(_ events: [DecodedEvent]) -> [DecodedEvent] {
    events.map { $0.isBadFrame ? .badFrame("*") : $0 }
}
