import Foundation
import LarderJSON
import LarderPostgreSQL
import LarderTestSupport
import XCTest

/// Processes sharing one store, writing at the same time: limits hold and
/// each object is migrated once. On a directory here; on PostgreSQL, with
/// each process a sidecar of its own, in `PostgreSQLSidecarsTests`.
class SharedStoreTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "larder-shared-" + UUID().uuidString
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: directory)
        super.tearDown()
    }

    func storeArguments() throws -> [String] { ["--store", directory] }

    /// Starts the next process on the store (a subclass may place each on another host).
    func sidecar() throws -> LarderProcess {
        try LarderProcess(try storeArguments())
    }

    private func request(_ id: Int, _ method: String, _ params: JSON) -> String {
        JSON.object(["jsonrpc": "2.0", "id": .int(id), "method": .string(method), "params": params]).description
    }

    /// Sends each sidecar its bursts, alternating, and collects every answer.
    private func interleave(_ work: [(LarderProcess, [[String]])]) -> [JSON] {
        var answers: [JSON] = []
        let rounds = work.map(\.1.count).max() ?? 0
        for round in 0..<rounds {
            for (larder, bursts) in work where round < bursts.count {
                XCTAssertTrue(larder.send(bytes: Array((bursts[round].joined(separator: "\n") + "\n").utf8)))
            }
            for (larder, bursts) in work where round < bursts.count {
                for _ in bursts[round] { if let m = larder.readMessage(timeout: 30) { answers.append(m) } }
            }
        }
        return answers
    }

    func testADiskLimitHoldsWhileTwoSidecarsWrite() throws {
        let a = try sidecar(), b = try sidecar()
        for s in [a, b] {
            XCTAssertNotNil(s.request("cache.open", params: ["cache": "shared", "disk": ["maxCount": 100]])?["result"])
        }
        let bursts = { (name: String) in
            (0..<6).map { round in (0..<50).map { k in
                self.request(round * 50 + k, "cache.set", ["cache": "shared", "key": .string("\(name)-\(round)-\(k)"), "value": .int(k)])
            } }
        }
        let answers = interleave([(a, bursts("a")), (b, bursts("b"))])
        XCTAssertEqual(answers.filter { $0["result"]?["stored"] == true }.count, 600, "every write stored")
        for s in [a, b] {
            let keys = s.request("cache.keys", params: ["cache": "shared", "limit": 1000], id: 9999)?["result"]?["keys"]?.arrayValue
            XCTAssertEqual(keys?.count, 100, "the limit of 100 held, seen from either sidecar")
            XCTAssertEqual(s.request("cache.stats", params: ["cache": "shared"], id: 9998)?["result"]?["disk"]?["count"], 100)
        }
        // The newest writes are the ones kept: the last round of each sidecar.
        let kept = Set(a.request("cache.keys", params: ["cache": "shared", "limit": 1000], id: 9997)?["result"]?["keys"]?.arrayValue?
            .compactMap(\.stringValue) ?? [])
        XCTAssertTrue((0..<50).allSatisfy { kept.contains("a-5-\($0)") && kept.contains("b-5-\($0)") }, "\(kept.sorted())")
    }

    func testMigrateRunFromTwoSidecarsMigratesEachObjectOnce() throws {
        let a = try sidecar(), b = try sidecar()
        XCTAssertNotNil(a.request("schema.register", params: ["type": "Note", "version": "1", "fields": ["text": "string", "stars": "integer"]])?["result"])
        let count = 400
        let puts = (0..<count).map { request($0 + 10, "object.put", ["key": .string("n\($0)"), "type": "Note", "value": ["text": .string("note \($0)"), "stars": .int($0 % 5)]]) }
        XCTAssertEqual(interleave([(a, [puts])]).filter { $0["result"] != nil }.count, count)
        XCTAssertNotNil(a.request("schema.register", params: [
            "type": "Note", "version": "2", "fields": ["body": "string", "stars": "integer"],
            "migrations": [["from": "1", "steps": [["op": "rename", "from": "text", "to": "body"]]]],
        ], id: 2)?["result"])

        let run = { (id: Int) in [[self.request(id, "migrate.run", ["batchSize": 25])]] }
        let answers = interleave([(a, run(5000)), (b, run(6000))])
        let migrated = answers.compactMap { $0["result"]?["migrated"]?.numberValue?.int }
        XCTAssertEqual(migrated.count, 2, "\(answers)")
        XCTAssertEqual(migrated.reduce(0, +), count, "each object migrated once, by one sidecar or the other: \(answers)")
        let again = b.request("migrate.run", id: 7000)?["result"]
        XCTAssertEqual(again?["migrated"], 0)
        XCTAssertEqual(again?["upToDate"], .int(count))
    }
}

/// Sidecars sharing one store on PostgreSQL: the same, and a sidecar kept
/// waiting too long by another's write says so with a retryable error.
final class PostgreSQLSidecarsTests: SharedStoreTests {
    private var store: PostgresTestStore?

    override func setUpWithError() throws {
        try super.setUpWithError()
        store = try PostgresTestStore("sidecars")
    }

    override func tearDown() {
        store?.drop()
        super.tearDown()
    }

    override func storeArguments() throws -> [String] { try XCTUnwrap(store).arguments }

    // Listed again: XCTest on Linux finds only the test methods a class declares itself.
    override func testADiskLimitHoldsWhileTwoSidecarsWrite() throws { try super.testADiskLimitHoldsWhileTwoSidecarsWrite() }
    override func testMigrateRunFromTwoSidecarsMigratesEachObjectOnce() throws { try super.testMigrateRunFromTwoSidecarsMigratesEachObjectOnce() }

    func testASidecarKeptWaitingByAnotherWriterAnswersRetryably() throws {
        let a = try sidecar()
        XCTAssertEqual(a.request("cache.set", params: ["key": "k", "value": 1])?["result"]?["stored"], true)
        // Another writer holds the store's writer lock, as a sidecar in the middle of a long transaction would.
        let (url, schema) = (try XCTUnwrap(store).url, try XCTUnwrap(store).schema)
        let other = try PostgresConnection(url, sessionSetup: "SET search_path TO \(schema)")
        let lock = try XCTUnwrap(other.query("SELECT hashtextextended($1, 0)", [.text("larder writer " + schema)]).int64(0, 0))
        try other.begin(then: "SELECT pg_advisory_xact_lock(\(lock))")
        let start = Date()
        let refused = a.request("cache.set", params: ["key": "k", "value": 2], id: 2, timeout: 30)
        XCTAssertEqual(refused?["error"]?["code"], -31002, "\(refused.map(\.description) ?? "no answer")")
        XCTAssertEqual(refused?["error"]?["data"]?["retryable"], true)
        XCTAssertGreaterThan(Date().timeIntervalSince(start), 4, "it waited for the lock first")
        other.rollBack()
        XCTAssertEqual(a.request("cache.set", params: ["key": "k", "value": 3], id: 3)?["result"]?["stored"], true)
        XCTAssertEqual(a.request("cache.get", params: ["key": "k"], id: 4)?["result"]?["value"], 3)
    }
}
