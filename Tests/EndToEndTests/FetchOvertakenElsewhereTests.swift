import Foundation
import LarderJSON
import XCTest

/// A fetch of `cache.getOrFetch` under way in one process while another
/// process on the same store removes the key, clears or drops its cache, or
/// clears the store: the fetched value is answered with `stored: false` and
/// not stored over the removal, as after a removal by the fetching process
/// itself (SPEC 9.44, "Writes win"). On a directory here; on PostgreSQL,
/// with each process a sidecar of its own, in `PostgreSQLFetchOvertakenElsewhereTests`.
class FetchOvertakenElsewhereTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "larder-overtaken-" + UUID().uuidString
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: directory)
        super.tearDown()
    }

    func storeArguments() throws -> [String] { ["--store", directory] }

    /// A process that answers `cache.fetch`, and another on the same store.
    func processes() throws -> (fetching: LarderProcess, other: LarderProcess) {
        let fetching = try LarderProcess(try storeArguments())
        XCTAssertNotNil(fetching.request("initialize", params: ["capabilities": ["fetch": true]])?["result"])
        return (fetching, try LarderProcess(try storeArguments()))
    }

    /// Stores `key` with a lifetime of 50 ms and waits until it has expired:
    /// a `cache.getOrFetch` of it then fetches, with the expired entry there.
    func storeExpired(_ larder: LarderProcess, cache: String = "default", key: String) {
        XCTAssertEqual(larder.request("cache.set", params: ["cache": .string(cache), "key": .string(key), "value": "old", "ttl": 0.05],
                                      id: "expiring")?["result"]?["stored"], true)
        usleep(200_000)
    }

    /// Sends `cache.getOrFetch` of `key` (id `getOrFetch`) and returns the id of the `cache.fetch` it causes.
    func startFetch(_ larder: LarderProcess, cache: String = "default", key: String,
                    file: StaticString = #filePath, line: UInt = #line) throws -> JSON {
        XCTAssertTrue(larder.send(json: ["jsonrpc": "2.0", "id": "getOrFetch", "method": "cache.getOrFetch",
                                         "params": ["cache": .string(cache), "key": .string(key)]]), file: file, line: line)
        let ask = try XCTUnwrap(larder.readMessage(), file: file, line: line)
        XCTAssertEqual(ask["method"], "cache.fetch", "\(ask)", file: file, line: line)
        return try XCTUnwrap(ask["id"], file: file, line: line)
    }

    /// Answers the `cache.fetch` `id` with a value and returns the answer to `cache.getOrFetch`.
    func answerFetch(_ larder: LarderProcess, _ id: JSON, file: StaticString = #filePath, line: UInt = #line) -> JSON? {
        XCTAssertTrue(larder.send(json: ["jsonrpc": "2.0", "id": id, "result": ["value": "fetched"]]), file: file, line: line)
        return larder.readUntilResponse(id: "getOrFetch", file: file, line: line).last
    }

    /// Checks that the fetched value was answered but not stored, and that neither process finds the key.
    func assertOvertaken(_ answer: JSON?, _ larders: [LarderProcess], cache: String = "default", key: String,
                         file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(answer?["result"]?["value"], "fetched", "\(answer.map(\.description) ?? "no answer")", file: file, line: line)
        XCTAssertEqual(answer?["result"]?["stored"], false, "\(answer.map(\.description) ?? "no answer")", file: file, line: line)
        for larder in larders {
            let found = larder.request("cache.get", params: ["cache": .string(cache), "key": .string(key)], id: "check")
            XCTAssertNotEqual(found?["result"]?["found"], true, "the fetched value is not stored over the removal: \(found.map(\.description) ?? "no answer")",
                              file: file, line: line)
        }
        assertCleanExit(larders, file: file, line: line)
    }

    /// Ends each process once (both may be the same one).
    func assertCleanExit(_ larders: [LarderProcess], file: StaticString = #filePath, line: UInt = #line) {
        var ended: Set<ObjectIdentifier> = []
        for larder in larders where ended.insert(ObjectIdentifier(larder)).inserted { assertCleanExit(larder, file: file, line: line) }
    }

    func testAnotherProcessRemovingTheKeyOvertakesAFetch() throws {
        let (a, b) = try processes()
        storeExpired(a, key: "k")
        let fetch = try startFetch(a, key: "k")
        XCTAssertEqual(b.request("cache.remove", params: ["key": "k"])?["result"]?["removed"], true)
        assertOvertaken(answerFetch(a, fetch), [a, b], key: "k")
    }

    func testAnotherProcessClearingTheCacheOvertakesAFetch() throws {
        let (a, b) = try processes()
        storeExpired(a, key: "k")
        let fetch = try startFetch(a, key: "k")
        XCTAssertEqual(b.request("cache.clear", params: [:])?["result"]?["removed"], 1)
        assertOvertaken(answerFetch(a, fetch), [a, b], key: "k")
    }

    func testAnotherProcessDroppingTheCacheOvertakesAFetch() throws {
        let (a, b) = try processes()
        XCTAssertNotNil(a.request("cache.open", params: ["cache": "pages"])?["result"])
        storeExpired(a, cache: "pages", key: "k")
        let fetch = try startFetch(a, cache: "pages", key: "k")
        XCTAssertEqual(b.request("cache.drop", params: ["cache": "pages"])?["result"]?["dropped"], true)
        assertOvertaken(answerFetch(a, fetch), [a, b], cache: "pages", key: "k")
    }

    func testAnotherProcessClearingTheStoreOvertakesAFetch() throws {
        let (a, b) = try processes()
        storeExpired(a, key: "k")
        let fetch = try startFetch(a, key: "k")
        XCTAssertEqual(b.request("store.clear", params: [:])?["result"]?["removed"], 1)
        assertOvertaken(answerFetch(a, fetch), [a, b], key: "k")
    }

    /// A key absent when the fetch began, in a cache in use, written and
    /// removed again: this process and a sidecar on PostgreSQL see it;
    /// another process on a store directory tells only that something
    /// changed, and nothing is left to compare.
    func checkWritingAndRemovingAnAbsentKeyOvertakesAFetch() throws {
        let (a, b) = try processes()
        XCTAssertEqual(a.request("cache.set", params: ["key": "other", "value": 1], id: "in use")?["result"]?["stored"], true)
        let fetch = try startFetch(a, key: "k")
        XCTAssertEqual(b.request("cache.set", params: ["key": "k", "value": "theirs"])?["result"]?["stored"], true)
        XCTAssertEqual(b.request("cache.remove", params: ["key": "k"], id: 2)?["result"]?["removed"], true)
        assertOvertaken(answerFetch(a, fetch), [a, b], key: "k")
    }

    /// Another process's commit that leaves the key alone does not keep the fetched value from being stored.
    func testAFetchIsStoredWhenAnotherProcessWritesAnotherKey() throws {
        let (a, b) = try processes()
        storeExpired(a, key: "k")
        let fetch = try startFetch(a, key: "k")
        XCTAssertEqual(b.request("cache.set", params: ["key": "other", "value": 1])?["result"]?["stored"], true)
        let answer = answerFetch(a, fetch)
        XCTAssertEqual(answer?["result"]?["stored"], true, "\(answer.map(\.description) ?? "no answer")")
        XCTAssertEqual(b.request("cache.get", params: ["key": "k"], id: "check")?["result"]?["value"], "fetched")
        assertCleanExit([a, b])
    }
}

/// The same made by the fetching process itself, with the removals that
/// reach an entry other than through `cache.remove`, `cache.clear`,
/// `cache.drop` and `store.clear` too.
final class FetchOvertakenHereTests: FetchOvertakenElsewhereTests {
    override func processes() throws -> (fetching: LarderProcess, other: LarderProcess) {
        let fetching = try LarderProcess(try storeArguments())
        XCTAssertNotNil(fetching.request("initialize", params: ["capabilities": ["fetch": true]])?["result"])
        return (fetching, fetching)
    }

    // Listed again: XCTest on Linux finds only the test methods a class declares itself.
    override func testAnotherProcessRemovingTheKeyOvertakesAFetch() throws { try super.testAnotherProcessRemovingTheKeyOvertakesAFetch() }
    override func testAnotherProcessClearingTheCacheOvertakesAFetch() throws { try super.testAnotherProcessClearingTheCacheOvertakesAFetch() }
    override func testAnotherProcessDroppingTheCacheOvertakesAFetch() throws { try super.testAnotherProcessDroppingTheCacheOvertakesAFetch() }
    override func testAnotherProcessClearingTheStoreOvertakesAFetch() throws { try super.testAnotherProcessClearingTheStoreOvertakesAFetch() }
    override func testAFetchIsStoredWhenAnotherProcessWritesAnotherKey() throws { try super.testAFetchIsStoredWhenAnotherProcessWritesAnotherKey() }

    func testWritingAndRemovingAnAbsentKeyOvertakesAFetch() throws {
        try checkWritingAndRemovingAnAbsentKeyOvertakesAFetch()
    }

    /// `migrate.run` drops what fails to migrate through no method that removes entries by name.
    func testAnObjectWrittenAndDroppedByMigrateRunOvertakesAFetch() throws {
        let (a, _) = try processes()
        XCTAssertNotNil(a.request("schema.register", params: ["type": "Note", "version": "1", "fields": ["text": "string"]])?["result"])
        let fetch = try startFetch(a, key: "k")
        XCTAssertEqual(a.request("object.put", params: ["key": "k", "type": "Note", "value": ["text": "old"]])?["result"]?["stored"], true)
        XCTAssertNotNil(a.request("schema.register", params: [
            "type": "Note", "version": "2", "fields": ["text": "integer"],
            "migrations": [["from": "1", "steps": []]],
        ])?["result"])
        let run = a.request("migrate.run", params: ["onFailure": "drop"], id: "migrate")
        XCTAssertEqual(run?["result"]?["dropped"], 1, "\(run.map(\.description) ?? "no answer")")
        assertOvertaken(answerFetch(a, fetch), [a], key: "k")
    }
}

/// The same with each process a sidecar of its own on one store on
/// PostgreSQL, whose commits say which entries they changed: a key absent
/// when the fetch began, written and removed again by another sidecar
/// meanwhile, overtakes the fetch too.
final class PostgreSQLFetchOvertakenElsewhereTests: FetchOvertakenElsewhereTests {
    private var store: PostgresTestStore?

    override func setUpWithError() throws {
        try super.setUpWithError()
        store = try PostgresTestStore("overtaken")
    }

    override func tearDown() {
        store?.drop()
        super.tearDown()
    }

    override func storeArguments() throws -> [String] { try XCTUnwrap(store).arguments }

    // Listed again: XCTest on Linux finds only the test methods a class declares itself.
    override func testAnotherProcessRemovingTheKeyOvertakesAFetch() throws { try super.testAnotherProcessRemovingTheKeyOvertakesAFetch() }
    override func testAnotherProcessClearingTheCacheOvertakesAFetch() throws { try super.testAnotherProcessClearingTheCacheOvertakesAFetch() }
    override func testAnotherProcessDroppingTheCacheOvertakesAFetch() throws { try super.testAnotherProcessDroppingTheCacheOvertakesAFetch() }
    override func testAnotherProcessClearingTheStoreOvertakesAFetch() throws { try super.testAnotherProcessClearingTheStoreOvertakesAFetch() }
    override func testAFetchIsStoredWhenAnotherProcessWritesAnotherKey() throws { try super.testAFetchIsStoredWhenAnotherProcessWritesAnotherKey() }

    func testAnotherSidecarWritingAndRemovingAnAbsentKeyOvertakesAFetch() throws {
        try checkWritingAndRemovingAnAbsentKeyOvertakesAFetch()
    }
}
