import Foundation
import LarderJSON
import LarderTestSupport
import XCTest

/// Several processes adding to one counter (SPEC 6.14): with
/// `cache.increment`, or reading it and writing it back with `ifRevision`
/// and a retry on -31080, no update is lost, where the same reads and plain
/// writes lose most of them. On a store
/// directory here; on PostgreSQL, each process a sidecar, in
/// `PostgreSQLLostUpdateTests`.
class LostUpdateTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "larder-lost-update-" + UUID().uuidString
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: directory)
        super.tearDown()
    }

    func storeArguments() throws -> [String] { ["--store", directory] }

    /// Additions per process.
    var additions: Int { 250 }

    private func request(_ id: Int, _ method: String, _ params: JSON) -> String {
        JSON.object(["jsonrpc": "2.0", "id": .int(id), "method": .string(method), "params": params]).description
    }

    /// Each of four processes adds 1 to the counter `additions` times: in
    /// every round, each that still has additions to make reads the counter,
    /// then each writes what it read plus one (with `ifRevision` of what it
    /// read, if `conditional`), so that all four write over the same read.
    /// Returns the final count and how many writes were refused.
    private func count(conditional: Bool) throws -> (value: Int, refused: Int) {
        let processes = try (0..<4).map { _ in try LarderProcess(try storeArguments()) }
        XCTAssertEqual(processes[0].request("cache.set", params: ["key": "counter", "value": 0])?["result"]?["stored"], true)
        var done = [Int](repeating: 0, count: processes.count)
        var refused = 0, id = 10
        while done.contains(where: { $0 < additions }) {
            let active = processes.indices.filter { done[$0] < additions }
            var read: [Int: (value: Int, revision: JSON)] = [:]
            for p in active {
                id += 1
                let found = try XCTUnwrap(processes[p].request("cache.get", params: ["key": "counter"], id: .int(id))?["result"])
                read[p] = (Int(try XCTUnwrap(found["value"]?.numberValue?.double)), try XCTUnwrap(found["revision"]))
            }
            for p in active {
                id += 1
                var params: JSONObject = ["key": "counter", "value": .int(read[p]!.value + 1)]
                if conditional { params["ifRevision"] = read[p]!.revision }
                XCTAssertTrue(processes[p].send(request(id, "cache.set", .object(params))))
            }
            for p in active {
                let answer = try XCTUnwrap(processes[p].readMessage(timeout: 30))
                if answer["result"]?["stored"] == true {
                    done[p] += 1
                } else {
                    XCTAssertEqual(answer["error"]?["code"], -31080, "\(answer)")
                    XCTAssertEqual(answer["error"]?["data"]?["key"], "counter")
                    XCTAssertNotEqual(answer["error"]?["data"]?["revision"], read[p]!.revision, "refused over the revision it read")
                    refused += 1
                }
            }
        }
        let final = try XCTUnwrap(processes[0].request("cache.get", params: ["key": "counter"], id: 1)?["result"]?["value"]?.numberValue?.double)
        for p in processes { p.closeStdin(); XCTAssertEqual(p.waitForExit(), 0) }
        return (Int(final), refused)
    }

    /// Increments per process.
    var increments: Int { 1_000 }

    /// Four processes each send `increments` of one counter, in bursts of
    /// 50 written to all four before any answer is read, so that their
    /// transactions interleave: every increment counts, once.
    func testIncrementsOfFourProcessesAllCount() throws {
        let processes = try (0..<4).map { _ in try LarderProcess(try storeArguments()) }
        var values = Set<Int>(), id = 0
        for _ in stride(from: 0, to: increments, by: 50) {
            for p in processes {
                let burst = (0..<50).map { _ in id += 1; return request(id, "cache.increment", ["key": "hits"]) }
                XCTAssertTrue(p.send(burst.joined(separator: "\n")))
            }
            for p in processes {
                for _ in 0..<50 {
                    let answer = try XCTUnwrap(p.readMessage(timeout: 30))
                    values.insert(Int(try XCTUnwrap(answer["result"]?["value"]?.numberValue?.double, "\(answer)")))
                }
            }
        }
        XCTAssertEqual(values, Set(1...(4 * increments)), "each increment answered a sum of its own")
        XCTAssertEqual(processes[0].request("cache.get", params: ["key": "hits"], id: 0)?["result"]?["value"], .int(4 * increments))
        for p in processes { p.closeStdin(); XCTAssertEqual(p.waitForExit(), 0) }
    }

    /// Four processes each set 50 keys with `ifAbsent`, their bursts written
    /// before any answer is read, so that they race for every key: each key
    /// goes to exactly one, whose value is stored, and the other three are
    /// refused naming the winner's revision.
    func testOfFourProcessesSettingIfAbsentEachKeyGoesToOne() throws {
        let processes = try (0..<4).map { _ in try LarderProcess(try storeArguments()) }
        let keys = 50
        for (p, process) in processes.enumerated() {
            let burst = (0..<keys).map { k in
                request(k, "cache.set", ["key": .string("k\(k)"), "value": .int(p), "ifAbsent": true])
            }
            XCTAssertTrue(process.send(burst.joined(separator: "\n")))
        }
        var winners = [Int: (process: Int, revision: JSON)](), refusals = [Int: [JSON]]()
        for (p, process) in processes.enumerated() {
            for _ in 0..<keys {
                let answer = try XCTUnwrap(process.readMessage(timeout: 30))
                let k = try XCTUnwrap(answer["id"]?.numberValue?.int)
                if let result = answer["result"] {
                    XCTAssertNil(winners[k], "key \(k) stored by two processes")
                    winners[k] = (p, try XCTUnwrap(result["revision"]))
                } else {
                    XCTAssertEqual(answer["error"]?["code"], -31080, "\(answer)")
                    refusals[k, default: []].append(try XCTUnwrap(answer["error"]?["data"]?["revision"]))
                }
            }
        }
        XCTAssertEqual(winners.count, keys, "every key stored once")
        let entries = try XCTUnwrap(processes[0].request("cache.getMany", params: ["keys": .array((0..<keys).map { .string("k\($0)") })],
                                                         id: 0)?["result"]?["entries"])
        for (k, winner) in winners {
            XCTAssertEqual(refusals[k]?.count, 3, "key \(k)")
            for revision in refusals[k] ?? [] { XCTAssertEqual(revision, winner.revision, "key \(k): a refusal names the winner's revision") }
            XCTAssertEqual(entries["k\(k)"]?["value"], .int(winner.process), "key \(k) holds its winner's value")
            XCTAssertEqual(entries["k\(k)"]?["revision"], winner.revision)
        }
        for p in processes { p.closeStdin(); XCTAssertEqual(p.waitForExit(), 0) }
    }

    func testReadsAndWritesIfRevisionWithRetriesLoseNoUpdate() throws {
        let (value, refused) = try count(conditional: true)
        XCTAssertEqual(value, 4 * additions, "every addition applied once")
        XCTAssertGreaterThan(refused, 0, "the processes did race")
    }

    func testTheSameReadsAndPlainWritesLoseUpdates() throws {
        XCTAssertLessThan(try count(conditional: false).value, 4 * additions, "what the condition prevents")
    }
}

final class PostgreSQLLostUpdateTests: LostUpdateTests {
    private var store: PostgresTestStore?

    override func setUpWithError() throws {
        try super.setUpWithError()
        store = try PostgresTestStore("lost_update")
    }

    override func tearDown() {
        store?.drop()
        super.tearDown()
    }

    override func storeArguments() throws -> [String] { try XCTUnwrap(store).arguments }

    override var additions: Int { 100 }
    override var increments: Int { 250 }

    // Listed again: XCTest on Linux finds only the test methods a class declares itself.
    override func testReadsAndWritesIfRevisionWithRetriesLoseNoUpdate() throws { try super.testReadsAndWritesIfRevisionWithRetriesLoseNoUpdate() }
    override func testTheSameReadsAndPlainWritesLoseUpdates() throws { try super.testTheSameReadsAndPlainWritesLoseUpdates() }
    override func testIncrementsOfFourProcessesAllCount() throws { try super.testIncrementsOfFourProcessesAllCount() }
    override func testOfFourProcessesSettingIfAbsentEachKeyGoesToOne() throws { try super.testOfFourProcessesSettingIfAbsentEachKeyGoesToOne() }
}
