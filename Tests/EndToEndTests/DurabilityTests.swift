import Foundation
import LarderJSON
import LarderPostgreSQL
import LarderTestSupport
import XCTest

/// What is acknowledged stays: across restarts, `kill -9`, and a second process on the same store.
class DurabilityTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "larder-durability-" + UUID().uuidString
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Where the processes of a test keep their one store.
    func storeArguments() throws -> [String] { ["--store", directory] }

    fileprivate func start() throws -> LarderProcess {
        try LarderProcess(try storeArguments())
    }

    private func set(_ key: String, _ value: JSON, id: Int) -> String {
        JSON.object(["jsonrpc": "2.0", "id": .int(id), "method": "cache.set",
                     "params": ["cache": "durable", "key": .string(key), "value": value]]).description
    }

    func testEntriesAndSettingsSurviveARestart() throws {
        let first = try start()
        XCTAssertEqual(first.request("cache.open", params: ["cache": "durable", "disk": ["maxCount": 50], "lifespan": 3600])?["result"]?["created"], true)
        XCTAssertEqual(first.request("cache.set", params: ["cache": "durable", "group": "g/1", "key": "k", "data": "AAEC"], id: 2)?["result"]?["stored"], true)
        first.closeStdin()
        XCTAssertEqual(first.waitForExit(), 0)

        let second = try start()
        let got = second.request("cache.get", params: ["cache": "durable", "group": "g/1", "key": "k"])
        XCTAssertEqual(got?["result"]?["data"], "AAEC")
        XCTAssertEqual(got?["result"]?["tier"], "disk")
        let list = second.request("cache.list", id: 2)?["result"]?["caches"]?.arrayValue ?? []
        let config = list.first { $0["name"] == "durable" }?["config"]
        XCTAssertEqual(config?["disk"]?["maxCount"], 50)
        XCTAssertEqual(config?["lifespan"], 3600)
    }

    func testAcknowledgedWritesSurviveKillNine() throws {
        let larder = try start()
        let count = 2000
        // One burst: the writes are group-committed, and each answer comes only after its commit.
        let burst = (1...count).map { set("key-\($0)", .int($0), id: $0) }.joined(separator: "\n") + "\n"
        XCTAssertTrue(larder.send(bytes: Array(burst.utf8)))
        var acknowledged = Set<Int>()
        while acknowledged.count < count, let m = larder.readMessage() {
            if m["result"]?["stored"] == true, let id = m["id"]?.numberValue?.int { acknowledged.insert(id) }
        }
        XCTAssertEqual(acknowledged.count, count)
        larder.kill(SIGKILL)
        _ = larder.waitForExit()

        let after = try start()
        let keys = (1...count).map { JSON.string("key-\($0)") }
        let entries = after.request("cache.getMany", params: ["cache": "durable", "keys": .array(keys)])?["result"]?["entries"]
        for k in 1...count {
            XCTAssertEqual(entries?["key-\(k)"]?["value"], .int(k), "key-\(k) was acknowledged but lost")
        }
    }

    func testTwoProcessesOnOneStoreNeverServeStaleData() throws {
        let a = try start()
        let b = try start()
        XCTAssertEqual(a.request("cache.set", params: ["cache": "shared", "key": "k", "value": "from a"])?["result"]?["stored"], true)
        // b reads it, which puts it in b's memory tier.
        XCTAssertEqual(b.request("cache.get", params: ["cache": "shared", "key": "k"])?["result"]?["value"], "from a")
        XCTAssertEqual(a.request("cache.set", params: ["cache": "shared", "key": "k", "value": "from a, again"], id: 2)?["result"]?["stored"], true)
        XCTAssertEqual(b.request("cache.get", params: ["cache": "shared", "key": "k"], id: 2)?["result"]?["value"], "from a, again",
                       "b served its stale memory copy")
        XCTAssertEqual(b.request("cache.remove", params: ["cache": "shared", "key": "k"], id: 3)?["result"]?["removed"], true)
        XCTAssertEqual(a.request("cache.get", params: ["cache": "shared", "key": "k"], id: 3)?["result"]?["found"], false)
        // Both keep writing; nothing is lost.
        for i in 0..<50 {
            let writer = i % 2 == 0 ? a : b
            XCTAssertEqual(writer.request("cache.set", params: ["cache": "shared", "key": .string("n\(i)"), "value": .int(i)], id: .int(100 + i))?["result"]?["stored"], true)
        }
        let keys = a.request("cache.keys", params: ["cache": "shared", "prefix": "n"], id: 4)?["result"]?["keys"]?.arrayValue
        XCTAssertEqual(keys?.count, 50)
        a.closeStdin()
        b.closeStdin()
        XCTAssertEqual(a.waitForExit(), 0)
        XCTAssertEqual(b.waitForExit(), 0)
    }

    func testSeveralProcessesCanOpenANewStoreAtTheSameMoment() throws {
        let processes = try (0..<6).map { _ in try start() }
        for (i, p) in processes.enumerated() {
            XCTAssertEqual(p.request("cache.set", params: ["key": .string("p\(i)"), "value": .int(i)])?["result"]?["stored"], true,
                           "process \(i) could not use the store: \(p.stderrAtEnd(timeout: 1))")
        }
        let keys = processes[0].request("cache.keys", id: 2)?["result"]?["keys"]?.arrayValue
        XCTAssertEqual(keys?.count, processes.count)
    }

    func testAMemoryOnlyCacheIsEmptyAfterARestartButKeepsItsSettings() throws {
        let first = try start()
        _ = first.request("cache.open", params: ["cache": "scratch", "persistent": false])
        _ = first.request("cache.set", params: ["cache": "scratch", "key": "k", "value": 1], id: 2)
        first.closeStdin()
        _ = first.waitForExit()
        let second = try start()
        XCTAssertEqual(second.request("cache.get", params: ["cache": "scratch", "key": "k"])?["result"]?["found"], false)
        let list = second.request("cache.list", id: 2)?["result"]?["caches"]?.arrayValue ?? []
        XCTAssertEqual(list.first { $0["name"] == "scratch" }?["config"]?["persistent"], false)
    }
}

/// The same, with the store on PostgreSQL: each process is a sidecar of its
/// own on one database and schema.
final class PostgreSQLDurabilityTests: DurabilityTests {
    private var store: PostgresTestStore?

    override func setUpWithError() throws {
        try super.setUpWithError()
        store = try PostgresTestStore("durability")
    }

    override func tearDown() {
        store?.drop()
        super.tearDown()
    }

    override func storeArguments() throws -> [String] { try XCTUnwrap(store).arguments }

    // Listed again: XCTest on Linux finds only the test methods a class declares itself.
    override func testEntriesAndSettingsSurviveARestart() throws { try super.testEntriesAndSettingsSurviveARestart() }
    override func testAcknowledgedWritesSurviveKillNine() throws { try super.testAcknowledgedWritesSurviveKillNine() }
    override func testTwoProcessesOnOneStoreNeverServeStaleData() throws { try super.testTwoProcessesOnOneStoreNeverServeStaleData() }
    override func testSeveralProcessesCanOpenANewStoreAtTheSameMoment() throws { try super.testSeveralProcessesCanOpenANewStoreAtTheSameMoment() }
    override func testAMemoryOnlyCacheIsEmptyAfterARestartButKeepsItsSettings() throws { try super.testAMemoryOnlyCacheIsEmptyAfterARestartButKeepsItsSettings() }
}
