import LarderTestSupport
import LarderJSON

/// Pipelined requests, and what each message the server sends back acknowledges.
final class Burst {
    /// Each request's line.
    private var lines: [[UInt8]] = []
    /// How many messages the server sends for the burst if it is left to
    /// finish: an answer per request, and the notifications announced.
    private(set) var expectedMessages = 0
    private var methods: [Int: String] = [:]
    /// Request id → the ledger batch its success answer acknowledges.
    private var acknowledgements: [Int: (ledger: WriteLedger, batch: Int)] = [:]
    /// Takes each notification (see `expectNotifications`); without it, a notification is a problem.
    private var notifications: ((JSON) -> String?)?

    /// Adds a request; with `writes`, its success answer acknowledges them as one batch of `ledger`.
    func request(_ method: String, _ params: JSON, writes: (ledger: WriteLedger, writes: [WriteLedger.Write])? = nil) {
        let id = methods.count + 1
        methods[id] = method
        let message: JSON = ["jsonrpc": "2.0", "id": .int(id), "method": .string(method), "params": params]
        lines.append(Array((message.description + "\n").utf8))
        expectedMessages += 1
        if let writes {
            acknowledgements[id] = (writes.ledger, writes.ledger.send("\(method) #\(id)", writes.writes))
        }
    }

    /// The requests in slices of up to a few dozen, each followed by a pause
    /// of up to 1.5 ms or none (see `PacedWrite`).
    func slices(using random: inout SeededRandom) -> [PacedWrite.Slice] {
        var slices: [PacedWrite.Slice] = []
        var start = 0
        while start < lines.count {
            let end = min(lines.count, start + random.int(1...48))
            let pause = random.chance(0.2) ? 0 : UInt32(random.int(1...1_500))
            var bytes: [UInt8] = []
            for line in lines[start..<end] { bytes += line }
            slices.append(.init(bytes: bytes, pauseAfter: pause))
            start = end
        }
        return slices
    }

    /// Announces `count` notifications, each handed to `receive`, which returns a problem or nil.
    func expectNotifications(_ count: Int, _ receive: @escaping (JSON) -> String?) {
        expectedMessages += count
        notifications = receive
    }

    /// Takes one message the server sent (before it was killed); returns what is wrong with it, if anything.
    func receive(_ message: JSON) -> String? {
        guard let id = message["id"]?.numberValue?.int, message["method"] == nil else {
            guard let notifications else { return "unexpected message: \(message)" }
            return notifications(message)
        }
        guard let method = methods[id] else { return "an answer to no request: \(message)" }
        if let error = message["error"] { return "\(method) #\(id) failed: \(error)" }
        guard message["result"] != nil else { return "\(method) #\(id) answered without a result: \(message)" }
        if let a = acknowledgements[id] { a.ledger.acknowledge(a.batch) }
        return nil
    }
}
