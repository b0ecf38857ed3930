import Foundation
import LarderJSON
import LarderTestSupport
import LarderPostgreSQL
import XCTest

/// `cache.getOrFetch` with `shared` from several `larder` processes on one
/// store directory: one process asks its client, the others wait for what it
/// stores (SPEC 9.44, "Shared single flight"). On PostgreSQL, with each
/// process a sidecar of its own, in `PostgreSQLSharedFetchSidecarsTests`.
class SharedFetchProcessesTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "larder-shared-fetch-" + UUID().uuidString
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: directory)
        super.tearDown()
    }

    func storeArguments() throws -> [String] { ["--store", directory] }

    /// Everything the store holds, as bytes, by where it lies: each file of the store directory.
    func storedBytes() throws -> [(String, [UInt8])] {
        try FileManager.default.contentsOfDirectory(atPath: directory).map { name in
            (name, Array(try XCTUnwrap(FileManager.default.contents(atPath: directory + "/" + name))))
        }
    }

    /// A process whose client answers `cache.fetch`.
    func sidecar() throws -> LarderProcess {
        let larder = try LarderProcess(try storeArguments())
        XCTAssertNotNil(larder.request("initialize", params: ["capabilities": ["fetch": true]], id: "init")?["result"])
        return larder
    }

    /// Sends `cache.getOrFetch` of the key `k` (id `get`), with a timeout
    /// long enough for every test here and `shared` as given.
    func getOrFetch(_ larder: LarderProcess, shared: Bool = true) {
        XCTAssertTrue(larder.send(json: ["jsonrpc": "2.0", "id": "get", "method": "cache.getOrFetch",
                                         "params": ["key": "k", "shared": .bool(shared), "timeoutMs": 20_000]]))
    }

    /// Plays each process's client on a thread of its own until its
    /// `cache.getOrFetch` is answered: every `cache.fetch` is answered after
    /// 500 ms (time for the other processes to miss the key and wait) with
    /// the value `from <process>`, or with an error while `failing` lasts.
    /// Returns the processes that were asked, in that order, and each process's answer.
    func serve(_ processes: [LarderProcess], failing: Int = 0) -> (fetchedBy: [Int], answers: [JSON?]) {
        let clients = Clients(processes, failing: failing)
        // A thread each, all at once: a process waiting for another's fetch
        // answers only once that one's client has answered, so no client may
        // wait for a thread that serves another first (as concurrentPerform's
        // may, with fewer threads than processes).
        let done = DispatchGroup()
        for p in processes.indices {
            done.enter()
            Thread { clients.serve(p); done.leave() }.start()
        }
        done.wait()
        return (clients.fetchedBy, clients.answers)
    }

    /// Three processes miss one key at once: one asks its client, and all
    /// three answer the value it stored.
    func testThreeProcessesMissingOneKeyFetchItOnce() throws {
        let processes = try (0..<3).map { _ in try sidecar() }
        for p in processes { getOrFetch(p) }
        let (fetchedBy, answers) = serve(processes)
        XCTAssertEqual(fetchedBy.count, 1, "exactly one process asks its client")
        let value: JSON = .string("from \(fetchedBy.first ?? -1)")
        for (p, answer) in answers.enumerated() {
            XCTAssertEqual(answer?["result"]?["value"], value, "process \(p): \(answer.map(\.description) ?? "no answer")")
            XCTAssertEqual(answer?["result"]?["fetched"], .bool(p == fetchedBy.first), "process \(p)")
        }
        XCTAssertEqual(answers.filter { $0?["result"]?["fetchedElsewhere"] == true }.count, 2,
                       "the processes that waited say the value was fetched elsewhere: \(answers)")
    }

    /// The process fetching is killed with SIGKILL mid-fetch: its lease
    /// expires unrenewed, and one of the processes waiting asks its own client.
    func testAWaiterFetchesWhenTheFetchingProcessIsKilled() throws {
        let processes = try (0..<3).map { _ in try sidecar() }
        getOrFetch(processes[0])
        XCTAssertEqual(processes[0].readMessage(timeout: 30)?["method"], "cache.fetch")
        getOrFetch(processes[1])
        getOrFetch(processes[2])
        processes[0].kill()
        XCTAssertNotNil(processes[0].waitForExit())
        let (fetchedBy, answers) = serve(Array(processes[1...]))
        XCTAssertEqual(fetchedBy.count, 1, "exactly one waiter takes the fetch over")
        for (p, answer) in answers.enumerated() {
            XCTAssertEqual(answer?["result"]?["value"], .string("from \(fetchedBy.first ?? -1)"),
                           "waiter \(p): \(answer.map(\.description) ?? "no answer")")
        }
    }

    /// The fetching process's client fails: that process answers -31050, and
    /// one of the processes waiting asks its own client.
    func testAWaiterFetchesWhenTheFetchFails() throws {
        let processes = try (0..<3).map { _ in try sidecar() }
        for p in processes { getOrFetch(p) }
        let (fetchedBy, answers) = serve(processes, failing: 1)
        XCTAssertEqual(fetchedBy.count, 2, "the failed fetch, then one more")
        XCTAssertEqual(answers.filter { $0?["error"]?["code"] == -31050 }.count, 1, "\(answers)")
        XCTAssertEqual(answers.filter { $0?["result"]?["value"] == .string("from \(fetchedBy.last ?? -1)") }.count, 2,
                       "the other two answer the value the second fetch stored: \(answers)")
    }

    /// Without `shared`, each process fetches for itself, as before.
    func testWithoutSharedEachProcessFetches() throws {
        let processes = try (0..<3).map { _ in try sidecar() }
        for p in processes { getOrFetch(p, shared: false) }
        let (fetchedBy, answers) = serve(processes)
        XCTAssertEqual(fetchedBy.sorted(), [0, 1, 2])
        for answer in answers { XCTAssertEqual(answer?["result"]?["fetched"], true, "\(answer.map(\.description) ?? "no answer")") }
    }

    /// `shared` set in `cache.open` is kept with the cache: another process
    /// opening it sees it, and fetches through the lease without naming it.
    func testSharedInTheCachesSettingsHoldsForEveryProcess() throws {
        let processes = try (0..<2).map { _ in try sidecar() }
        let opened = processes[0].request("cache.open", params: ["cache": "default", "fetch": ["shared": true]])
        XCTAssertEqual(opened?["result"]?["config"]?["fetch"]?["shared"], true)
        XCTAssertEqual(processes[1].request("cache.open", params: ["cache": "default"])?["result"]?["config"]?["fetch"]?["shared"], true)
        for p in processes {
            XCTAssertTrue(p.send(json: ["jsonrpc": "2.0", "id": "get", "method": "cache.getOrFetch", "params": ["key": "k"]]))
        }
        let (fetchedBy, answers) = serve(processes)
        XCTAssertEqual(fetchedBy.count, 1)
        for answer in answers { XCTAssertEqual(answer?["result"]?["value"], .string("from \(fetchedBy.first ?? -1)")) }
    }

    /// Requests of one process waiting for another's fetch share one wait:
    /// its client is never asked, and each is answered once with the value;
    /// a waiting request cancelled is answered -32800 alone.
    func testRequestsOfOneProcessShareOneWait() throws {
        let holder = try sidecar(), waiting = try sidecar()
        getOrFetch(holder)
        let ask = try XCTUnwrap(holder.readMessage(timeout: 30))
        XCTAssertEqual(ask["method"], "cache.fetch")
        for id in ["a", "b", "c"] {
            XCTAssertTrue(waiting.send(json: ["jsonrpc": "2.0", "id": .string(id), "method": "cache.getOrFetch",
                                              "params": ["key": "k", "shared": true, "timeoutMs": 20_000]]))
        }
        XCTAssertTrue(waiting.notify("$/cancelRequest", params: ["id": "b"]))
        let cancelled = waiting.readMessage(timeout: 30)
        XCTAssertEqual(cancelled?["id"], "b")
        XCTAssertEqual(cancelled?["error"]?["code"], -32800)
        XCTAssertTrue(holder.send(json: ["jsonrpc": "2.0", "id": try XCTUnwrap(ask["id"]), "result": ["value": "fetched"]]))
        XCTAssertEqual(holder.readUntilResponse(id: "get", timeout: 30).last?["result"]?["stored"], true)
        var answered: [String: JSON] = [:]
        for _ in 0..<2 {
            guard let m = waiting.readMessage(timeout: 30) else { break }
            XCTAssertNotEqual(m["method"], "cache.fetch", "the waiting process's client is not asked")
            if case .string(let id)? = m["id"] { answered[id] = m["result"] }
        }
        XCTAssertEqual(Set(answered.keys), ["a", "c"])
        for (id, result) in answered {
            XCTAssertEqual(result["value"], "fetched", id)
            XCTAssertEqual(result["fetchedElsewhere"], true, id)
        }
    }

    /// A wait lasts as long as the waiter's own fetch may take: past it,
    /// with the holder still fetching, it ends as a fetch whose every
    /// attempt failed (-31050, no attempts of its own); the holder's value
    /// is stored all the same.
    func testAWaitEndsWithTheFetchsBound() throws {
        let holder = try sidecar(), waiting = try sidecar()
        getOrFetch(holder)
        let ask = try XCTUnwrap(holder.readMessage(timeout: 30))
        XCTAssertEqual(ask["method"], "cache.fetch")
        let gaveUp = waiting.request("cache.getOrFetch", params: ["key": "k", "shared": true, "timeoutMs": 200], id: "short", timeout: 30)
        XCTAssertEqual(gaveUp?["error"]?["code"], -31050, "\(gaveUp.map(\.description) ?? "no answer")")
        XCTAssertEqual(gaveUp?["error"]?["data"]?["attempts"], 0)
        XCTAssertTrue(holder.send(json: ["jsonrpc": "2.0", "id": try XCTUnwrap(ask["id"]), "result": ["value": "late"]]))
        XCTAssertEqual(holder.readUntilResponse(id: "get", timeout: 30).last?["result"]?["stored"], true)
        XCTAssertEqual(waiting.request("cache.get", params: ["key": "k"], id: "check")?["result"]?["value"], "late")
    }

    /// An encrypted cache's key is leased as its entries hold it: no file of
    /// the store has it in clear while its fetch is out.
    func testAnEncryptedCachesKeyIsNotLeasedInClear() throws {
        let larder = try LarderProcess(try storeArguments())
        XCTAssertNotNil(larder.request("initialize", params: [
            "capabilities": ["fetch": true], "encryption": ["key": "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="],
        ], id: "init")?["result"])
        XCTAssertEqual(larder.request("cache.open", params: ["cache": "secrets", "encrypted": true, "fetch": ["shared": true]])?["result"]?["created"],
                       true)
        let key = "patient-4711-diagnosis"
        XCTAssertTrue(larder.send(json: ["jsonrpc": "2.0", "id": "get", "method": "cache.getOrFetch",
                                         "params": ["cache": "secrets", "key": .string(key)]]))
        let ask = try XCTUnwrap(larder.readMessage(timeout: 30))
        XCTAssertEqual(ask["method"], "cache.fetch")
        // The lease is committed before the client is asked.
        let hex = Array(key.utf8.map { String($0, radix: 16) }.joined().utf8)
        for (name, bytes) in try storedBytes() {
            XCTAssertNil(bytes.firstRange(of: Array(key.utf8)), "\(key) in clear in \(name)")
            XCTAssertNil(bytes.firstRange(of: hex), "\(key) in clear, as hex, in \(name)")
        }
        XCTAssertTrue(larder.send(json: ["jsonrpc": "2.0", "id": try XCTUnwrap(ask["id"]), "result": ["value": "fetched"]]))
        XCTAssertEqual(larder.readUntilResponse(id: "get", timeout: 30).last?["result"]?["stored"], true)
    }
}

/// Each process's client, played by one thread, and what they saw.
private final class Clients: @unchecked Sendable {
    private let processes: [LarderProcess]
    private let lock = NSLock()
    private var failing: Int
    private(set) var fetchedBy: [Int] = []
    private(set) var answers: [JSON?]

    init(_ processes: [LarderProcess], failing: Int) {
        self.processes = processes
        self.failing = failing
        answers = Array(repeating: nil, count: processes.count)
    }

    func serve(_ p: Int) {
        let larder = processes[p]
        while let m = larder.readMessage(timeout: 60) {
            guard m["method"] == "cache.fetch", let id = m["id"] else {
                if m["id"] == "get" { return record(p, answer: m) }
                continue
            }
            let fails = asked(p)
            usleep(500_000)
            let answer: JSON = fails ? ["jsonrpc": "2.0", "id": id, "error": ["code": 1, "message": "upstream 503"]]
                                     : ["jsonrpc": "2.0", "id": id, "result": ["value": .string("from \(p)")]]
            _ = larder.send(json: answer)
        }
    }

    /// Notes that `p` was asked; whether its answer is to fail.
    private func asked(_ p: Int) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        fetchedBy.append(p)
        guard failing > 0 else { return false }
        failing -= 1
        return true
    }

    private func record(_ p: Int, answer: JSON) {
        lock.lock()
        defer { lock.unlock() }
        answers[p] = answer
    }
}

final class PostgreSQLSharedFetchSidecarsTests: SharedFetchProcessesTests {
    private var store: PostgresTestStore?

    override func setUpWithError() throws {
        try super.setUpWithError()
        store = try PostgresTestStore("shared_fetch")
    }

    override func tearDown() {
        store?.drop()
        super.tearDown()
    }

    /// With notifications: the sidecars that wait learn of the value without a round trip while nothing is notified.
    override func storeArguments() throws -> [String] { try XCTUnwrap(store).arguments + ["--pg-coherence", "notify"] }

    // Listed again: XCTest on Linux finds only the test methods a class declares itself.
    override func testThreeProcessesMissingOneKeyFetchItOnce() throws { try super.testThreeProcessesMissingOneKeyFetchItOnce() }
    override func testAWaiterFetchesWhenTheFetchingProcessIsKilled() throws { try super.testAWaiterFetchesWhenTheFetchingProcessIsKilled() }
    override func testAWaiterFetchesWhenTheFetchFails() throws { try super.testAWaiterFetchesWhenTheFetchFails() }
    override func testWithoutSharedEachProcessFetches() throws { try super.testWithoutSharedEachProcessFetches() }
    override func testSharedInTheCachesSettingsHoldsForEveryProcess() throws {
        try super.testSharedInTheCachesSettingsHoldsForEveryProcess()
    }
    override func testRequestsOfOneProcessShareOneWait() throws { try super.testRequestsOfOneProcessShareOneWait() }
    override func testAWaitEndsWithTheFetchsBound() throws { try super.testAWaitEndsWithTheFetchsBound() }
    override func testAnEncryptedCachesKeyIsNotLeasedInClear() throws { try super.testAnEncryptedCachesKeyIsNotLeasedInClear() }

    /// Every row of every table in the store's schema, as PostgreSQL writes it out as text (bytea as hex).
    override func storedBytes() throws -> [(String, [UInt8])] {
        let store = try XCTUnwrap(store)
        let admin = try PostgresConnection(store.url)
        defer { admin.close() }
        let tables = try admin.query("SELECT tablename FROM pg_tables WHERE schemaname = $1", [.text(store.schema)], format: .text)
        var held: [(String, [UInt8])] = []
        for t in 0..<tables.rowCount {
            let table = try XCTUnwrap(tables.string(t, 0))
            let rows = try admin.query("SELECT t::text FROM \(store.schema).\(table) t", format: .text)
            var text: [UInt8] = []
            for r in 0..<rows.rowCount { text += Array((try rows.string(r, 0) ?? "").utf8) + [0x0A] }
            held.append((table, text))
        }
        return held
    }
}
