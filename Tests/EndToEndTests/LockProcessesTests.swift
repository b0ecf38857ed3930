import Foundation
import LarderJSON
import LarderSystem
import LarderTestSupport
import XCTest

/// Leases taken by several `larder` processes on one store directory; on
/// PostgreSQL, with each process a sidecar of its own, in
/// `PostgreSQLLockSidecarsTests`.
class LockProcessesTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "larder-locks-" + UUID().uuidString
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: directory)
        super.tearDown()
    }

    func storeArguments() throws -> [String] { ["--store", directory] }

    func sidecar(_ extra: [String] = []) throws -> LarderProcess {
        try LarderProcess(try storeArguments() + extra)
    }

    private func acquire(_ larder: LarderProcess, _ name: String, ttl: Double, wait: Double? = nil, id: Int = 1,
                         file: StaticString = #filePath, line: UInt = #line) -> JSON? {
        var params: JSONObject = ["name": .string(name), "ttl": .double(ttl)]
        if let wait { params["wait"] = .double(wait) }
        return larder.request("lock.acquire", params: .object(params), id: .int(id), timeout: 60, file: file, line: line)?["result"]
    }

    /// Four processes each take the lock ten times, waiting for it, and hold
    /// it for a moment: never two at once, every one gets in, and the tokens
    /// grow in the order the lock was granted.
    func testFourProcessesTakeTurnsUnderOneLock() throws {
        let processes = Sidecars(try (0..<4).map { _ in try sidecar() })
        let rounds = 10
        let turns = Turns()
        DispatchQueue.concurrentPerform(iterations: processes.all.count) { p in
            let larder = processes.all[p]
            for round in 0..<rounds {
                let id = 2 * round + 1
                let params: JSON = ["name": "shared", "ttl": 30, "wait": 60]
                guard let result = larder.request("lock.acquire", params: params, id: .int(id), timeout: 90)?["result"],
                      result["acquired"] == true, let token = result["token"]?.numberValue?.int else {
                    return turns.fail("process \(p) round \(round): not acquired")
                }
                turns.enter(token: token)
                usleep(2_000)
                turns.leave()
                let released = larder.request("lock.release", params: ["name": "shared", "token": .int(token)], id: .int(id + 1), timeout: 60)
                if released?["result"]?["released"] != true {
                    turns.fail("process \(p) round \(round): release answered \(String(describing: released))")
                }
            }
        }
        XCTAssertEqual(turns.failures, [])
        XCTAssertEqual(turns.overlaps, 0, "two processes held the lock at once")
        XCTAssertEqual(turns.granted.count, processes.all.count * rounds, "every process got in every round")
        XCTAssertEqual(turns.granted, Array(1...(processes.all.count * rounds)), "tokens grow by one in the order granted")
        XCTAssertEqual(processes.all[0].request("lock.list", id: 999)?["result"]?["locks"], .array([]))
    }

    /// A holder killed with SIGKILL gives back nothing: its lease lasts until
    /// it expires, and then another process takes the name, under the next token.
    func testAKilledHoldersLeaseExpiresAndAnotherTakesIt() throws {
        let a = try sidecar(), b = try sidecar()
        XCTAssertEqual(acquire(a, "job", ttl: 1)?["token"], 1)
        a.kill()
        XCTAssertNotNil(a.waitForExit())
        let refused = acquire(b, "job", ttl: 1, id: 2)
        XCTAssertEqual(refused?["acquired"], false, "the lease outlives its killed holder")
        XCTAssertEqual(refused?["heldHere"], false)
        let taken = acquire(b, "job", ttl: 30, wait: 30, id: 3)
        XCTAssertEqual(taken?["acquired"], true)
        XCTAssertEqual(taken?["token"], 2)
    }

    /// A holder whose client closes its input gives its leases back as it
    /// exits: a process waiting for the name gets it long before the lease
    /// would have expired, and one asking afterwards gets the next one.
    func testAHolderWhoseInputEndsReleasesAtOnce() throws {
        let a = try sidecar(), b = try sidecar(), c = try sidecar()
        XCTAssertEqual(acquire(a, "job", ttl: 3600)?["token"], 1)
        XCTAssertEqual(acquire(a, "other", ttl: 3600, id: 2)?["token"], 1)
        XCTAssertTrue(b.send(#"{"jsonrpc":"2.0","id":7,"method":"lock.acquire","params":{"name":"job","ttl":3600,"wait":3600}}"#))
        a.closeStdin()
        XCTAssertEqual(a.waitForExit(), 0)
        let waited = b.readMessage(timeout: 60)
        XCTAssertEqual(waited?["id"], 7)
        XCTAssertEqual(waited?["result"]?["acquired"], true)
        XCTAssertEqual(waited?["result"]?["token"], 2)
        XCTAssertEqual(acquire(c, "other", ttl: 10, id: 3)?["token"], 2, "every lease of the session was given back")
    }

    /// A wait cancelled with `$/cancelRequest`, or cut short by the end of
    /// the client's input, is answered -32800 and takes nothing.
    func testAWaitCancelledOrCutShortTakesNothing() throws {
        let a = try sidecar(), b = try sidecar()
        XCTAssertEqual(acquire(a, "job", ttl: 3600)?["token"], 1)
        XCTAssertTrue(b.send(#"{"jsonrpc":"2.0","id":5,"method":"lock.acquire","params":{"name":"job","ttl":3600,"wait":3600}}"#))
        XCTAssertTrue(b.notify("$/cancelRequest", params: ["id": 5]))
        let cancelled = b.readMessage(timeout: 30)
        XCTAssertEqual(cancelled?["id"], 5)
        XCTAssertEqual(cancelled?["error"]?["code"], -32800)
        XCTAssertEqual(a.request("lock.release", params: ["name": "job", "token": 1], id: 2)?["result"]?["released"], true)
        // Time for b to look at the name (every 10 ms) many times over, were it still waiting.
        usleep(200_000)
        XCTAssertEqual(acquire(a, "job", ttl: 3600, id: 3)?["token"], 2, "the cancelled wait took nothing")

        XCTAssertTrue(b.send(#"{"jsonrpc":"2.0","id":6,"method":"lock.acquire","params":{"name":"job","ttl":3600,"wait":3600}}"#))
        b.closeStdin()
        let cut = b.readMessage(timeout: 30)
        XCTAssertEqual(cut?["id"], 6)
        XCTAssertEqual(cut?["error"]?["code"], -32800)
        XCTAssertEqual(b.waitForExit(), 0)
        XCTAssertEqual(a.request("lock.renew", params: ["name": "job", "token": 2, "ttl": 60], id: 4)?["result"]?["token"], 2)
    }

    /// Requests of one process waiting for one name get it in the order they
    /// came; other requests are answered meanwhile. The clock is fixed: the
    /// first lease expires when the clock is moved.
    func testWaitersOfOneProcessAreServedInOrderWithoutHoldingUpOthers() throws {
        let a = try sidecar(["--clock", "2026-01-01T00:00:00Z", "--enable-test-methods"])
        let b = try sidecar(["--clock", "2026-01-01T00:00:00Z"])
        XCTAssertEqual(acquire(b, "job", ttl: 10)?["token"], 1)
        let waits = [#"{"jsonrpc":"2.0","id":2,"method":"lock.acquire","params":{"name":"job","ttl":10,"wait":60}}"#,
                     #"{"jsonrpc":"2.0","id":3,"method":"lock.acquire","params":{"name":"job","ttl":10,"wait":60}}"#,
                     #"{"jsonrpc":"2.0","id":4,"method":"cache.set","params":{"key":"k","value":1}}"#]
        XCTAssertTrue(a.send(waits.joined(separator: "\n")))
        XCTAssertEqual(a.readMessage(timeout: 30)?["id"], 4, "a later request is not held up by the waits")
        XCTAssertEqual(a.request("debug.advanceClock", params: ["seconds": 10], id: 5)?["id"], 5)
        let first = a.readMessage(timeout: 30)
        XCTAssertEqual(first?["id"], 2, "the first waiter gets the name first")
        XCTAssertEqual(first?["result"]?["token"], 2)
        XCTAssertTrue(a.send(#"{"jsonrpc":"2.0","id":6,"method":"lock.release","params":{"name":"job","token":2}}"#))
        var answers: [Int: JSON] = [:]
        for _ in 0..<2 {
            guard let m = a.readMessage(timeout: 30), let id = m["id"]?.numberValue?.int else { break }
            answers[id] = m["result"]
        }
        XCTAssertEqual(answers[6]?["released"], true)
        XCTAssertEqual(answers[3]?["acquired"], true)
        XCTAssertEqual(answers[3]?["token"], 3, "the second waiter gets it once the first gives it back")
    }
}

/// The processes of a test, each driven by one thread of `concurrentPerform` alone.
private struct Sidecars: @unchecked Sendable {
    let all: [LarderProcess]
    init(_ all: [LarderProcess]) { self.all = all }
}

/// What the clients saw of their turns under the lock, from every thread.
private final class Turns: @unchecked Sendable {
    private let lock = NSLock()
    private var inside = 0
    private(set) var overlaps = 0
    /// The tokens in the order the lock was granted (entered).
    private(set) var granted: [Int] = []
    private(set) var failures: [String] = []

    func enter(token: Int) {
        lock.lock()
        defer { lock.unlock() }
        inside += 1
        if inside > 1 { overlaps += 1 }
        granted.append(token)
    }

    func leave() {
        lock.lock()
        defer { lock.unlock() }
        inside -= 1
    }

    func fail(_ what: String) {
        lock.lock()
        defer { lock.unlock() }
        failures.append(what)
    }
}

final class PostgreSQLLockSidecarsTests: LockProcessesTests {
    private var store: PostgresTestStore?

    override func setUpWithError() throws {
        try super.setUpWithError()
        store = try PostgresTestStore("locks")
    }

    override func tearDown() {
        store?.drop()
        super.tearDown()
    }

    override func storeArguments() throws -> [String] { try XCTUnwrap(store).arguments }

    // Listed again: XCTest on Linux finds only the test methods a class declares itself.
    override func testFourProcessesTakeTurnsUnderOneLock() throws { try super.testFourProcessesTakeTurnsUnderOneLock() }
    override func testAKilledHoldersLeaseExpiresAndAnotherTakesIt() throws { try super.testAKilledHoldersLeaseExpiresAndAnotherTakesIt() }
    override func testAHolderWhoseInputEndsReleasesAtOnce() throws { try super.testAHolderWhoseInputEndsReleasesAtOnce() }
    override func testAWaitCancelledOrCutShortTakesNothing() throws { try super.testAWaitCancelledOrCutShortTakesNothing() }
    override func testWaitersOfOneProcessAreServedInOrderWithoutHoldingUpOthers() throws {
        try super.testWaitersOfOneProcessAreServedInOrderWithoutHoldingUpOthers()
    }
}
