import Foundation
import LarderJSON
import LarderSystem
import XCTest

/// A sidecar on PostgreSQL under load while the network to its server is
/// cut silently (packets dropped: no reset, no error) and then restored.
/// Every request is answered within the sidecar's `--pg-timeout` (a result,
/// or -31003 for what needs the server); once the cut is noticed, reads of
/// a memory-only cache, `rpc.discover` and errors are answered at once; a
/// sidecar started before the cut answers its `initialize`; once the
/// network is back, writes are acknowledged again within about a second;
/// and every acknowledged write is there afterwards.
struct NetworkCut {
    /// The sidecar's `--pg-timeout`.
    static let timeout = 2.0
    /// What a wait may exceed its bound by on a loaded test machine.
    static let margin = 1.0
    /// How long the network stays cut.
    static let duration = 3 * timeout

    /// larder's arguments beside the store's.
    static let arguments = ["--pg-timeout", String(timeout)]

    /// What was measured, in seconds: the longest wait of a request while
    /// the cut was not yet noticed, the longest after, the longest read of
    /// the memory-only cache after, and how long after the network's
    /// return a write was acknowledged again.
    struct Figures: CustomStringConvertible {
        var firstStall = 0.0, longestWaitAfter = 0.0, longestMemoryReadAfter = 0.0, recovery = Double.infinity
        var description: String {
            String(format: "first stall %.3f s, then each request at most %.3f s (memory-only reads %.3f s), writes acknowledged again %.3f s after the network's return",
                   firstStall, longestWaitAfter, longestMemoryReadAfter, recovery)
        }
    }

    let larder: LarderProcess
    /// A sidecar on the same store, started before the cut and not yet initialized.
    let fresh: LarderProcess
    private var id = 0
    private var written = 0
    private(set) var acknowledged: [String] = []

    init(_ larder: LarderProcess, fresh: LarderProcess) {
        self.larder = larder
        self.fresh = fresh
    }

    private mutating func call(_ method: String, _ params: JSON) -> (answer: JSON?, seconds: Double) {
        id += 1
        let start = MonotonicClock.seconds()
        let answer = larder.request(method, params: params, id: .int(id), timeout: 60)
        return (answer, MonotonicClock.seconds() - start)
    }

    /// A write to a persistent cache (the default one).
    private mutating func write() -> (answer: JSON?, seconds: Double) {
        written += 1
        let key = "k\(written)"
        let r = call("cache.set", ["key": .string(key), "value": .int(written)])
        if r.answer?["result"]?["stored"] == true { acknowledged.append(key) }
        return r
    }

    private mutating func readMemory() -> (answer: JSON?, seconds: Double) {
        call("cache.get", ["cache": "scratch", "key": "m"])
    }

    mutating func run(cut: () throws -> Void, restore: () throws -> Void) throws -> Figures {
        var figures = Figures()
        // A sidecar opens its store as it starts, before it reads a request;
        // one still connecting when the cut comes gives up after the timeout
        // and exits, as it should (PostgreSQLServerFaultTests'
        // testASidecarStartedWhileTheServerIsDownSaysWhyAndExits). Any answer
        // says the fresh one is serving, so the cut finds it started, which
        // is what its `initialize` during the cut is to show (this raced, and
        // lost about 1 run in 8). An empty batch is answered (-32600) without
        // being a request, which would have to be `initialize`.
        XCTAssertTrue(fresh.send("[]"))
        XCTAssertEqual(fresh.readMessage(timeout: 60)?["error"]?["code"], -32600, "the second sidecar started")
        XCTAssertNotNil(call("cache.open", ["cache": "scratch", "persistent": false]).answer?["result"])
        XCTAssertEqual(call("cache.set", ["cache": "scratch", "key": "m", "value": "in memory"]).answer?["result"]?["stored"], true)
        for _ in 0..<20 { XCTAssertEqual(write().answer?["result"]?["stored"], true) }

        try cut()
        let cutAt = MonotonicClock.seconds()
        var noticed = false
        var round = 0
        while MonotonicClock.seconds() - cutAt < Self.duration {
            round += 1
            let w = write()
            XCTAssertLessThanOrEqual(w.seconds, Self.timeout + Self.margin, "a write during the cut waited past the timeout")
            if w.answer?["result"] == nil {
                XCTAssertEqual(w.answer?["error"]?["code"], -31003, "\(w.answer.map(\.description) ?? "no answer")")
            }
            let m = readMemory()
            XCTAssertEqual(m.answer?["result"]?["value"], "in memory", "\(m.answer.map(\.description) ?? "no answer")")
            XCTAssertLessThanOrEqual(m.seconds, Self.timeout + Self.margin, "a memory-only read during the cut waited past the timeout")
            if !noticed {
                figures.firstStall = max(figures.firstStall, w.seconds, m.seconds)
                noticed = w.answer?["error"] != nil
                continue
            }
            figures.longestWaitAfter = max(figures.longestWaitAfter, w.seconds, m.seconds)
            figures.longestMemoryReadAfter = max(figures.longestMemoryReadAfter, m.seconds)
            XCTAssertLessThan(m.seconds, 1, "a memory-only read waited once the cut was noticed")
            if round % 5 == 0 {
                let d = call("rpc.discover", .object([:]))
                XCTAssertNotNil(d.answer?["result"]?["methods"])
                let e = call("cache.gett", ["key": "k1"])
                XCTAssertEqual(e.answer?["error"]?["code"], -32601)
                XCTAssertLessThan(max(d.seconds, e.seconds), 1, "rpc.discover or an error waited once the cut was noticed")
                figures.longestWaitAfter = max(figures.longestWaitAfter, d.seconds, e.seconds)
            }
        }
        XCTAssertTrue(noticed, "the cut was never noticed")
        let start = MonotonicClock.seconds()
        let initialized = fresh.request("initialize", params: [:], id: 1, timeout: 60)
        XCTAssertNotNil(initialized?["result"], "initialize during the cut: \(initialized.map(\.description) ?? "no answer; stderr: \(fresh.stderrAtEnd(timeout: 5))")")
        XCTAssertLessThanOrEqual(MonotonicClock.seconds() - start, Self.timeout + Self.margin, "initialize during the cut waited past the timeout")

        try restore()
        let restoredAt = MonotonicClock.seconds()
        while MonotonicClock.seconds() - restoredAt < 10 {
            let w = write()
            XCTAssertLessThanOrEqual(w.seconds, Self.timeout + Self.margin, "a write after the cut waited past the timeout")
            if w.answer?["result"]?["stored"] == true {
                figures.recovery = MonotonicClock.seconds() - restoredAt
                break
            }
            XCTAssertEqual(w.answer?["error"]?["code"], -31003, "\(w.answer.map(\.description) ?? "no answer")")
        }
        XCTAssertLessThanOrEqual(figures.recovery, 1 + Self.margin, "writes were acknowledged again within a second of the network's return")
        for _ in 0..<20 { XCTAssertEqual(write().answer?["result"]?["stored"], true) }

        let keys = JSON.array(acknowledged.map(JSON.string))
        let entries = call("cache.getMany", ["keys": keys]).answer?["result"]?["entries"]
        for k in acknowledged { XCTAssertEqual(entries?[k]?["found"], true, "\(k) was acknowledged but lost") }
        return figures
    }
}
