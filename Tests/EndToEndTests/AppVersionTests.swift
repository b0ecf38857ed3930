import XCTest
import LarderJSON

/// Cashier's rule, across processes: data a cache holds is served only to the
/// app version that wrote it, unless the cache persists across versions or is
/// a durable store; schemas survive; no declared version wipes nothing. Two
/// versions at once: on a directory here, on PostgreSQL (each process a
/// sidecar of its own) in `PostgreSQLAppVersionTests`.
class AppVersionTests: XCTestCase {
    private var dir = ""

    override func setUp() {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("larder-e2e-appversion-\(UUID().uuidString)").path
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: dir)
    }

    func storeArguments() throws -> [String] { ["--store", dir] }

    private func start(_ arguments: [String] = []) throws -> LarderProcess {
        try LarderProcess(try storeArguments() + arguments)
    }

    private func get(_ larder: LarderProcess, _ cache: String, _ key: String) -> JSON? {
        larder.request("cache.get", params: ["cache": .string(cache), "key": .string(key)], id: 9)?["result"]?["found"]
    }

    func testAnotherVersionWipesPurgeableCachesOnFirstUseAndKeepsTheRest() throws {
        let v1 = try start()
        XCTAssertNil(v1.request("initialize", params: ["appVersion": "1.0"])?["result"]?["previousAppVersion"])
        XCTAssertNotNil(v1.request("cache.open", params: ["cache": "keep", "persistsAcrossVersions": true])?["result"])
        XCTAssertNotNil(v1.request("cache.open", params: ["cache": "notes", "kind": "store"])?["result"])
        XCTAssertNotNil(v1.request("schema.register", params: ["type": "Note", "version": "1", "fields": ["text": "string"]])?["result"])
        for cache in ["default", "keep", "notes"] {
            XCTAssertEqual(v1.request("cache.set", params: ["cache": .string(cache), "key": "k", "value": 1])?["result"]?["stored"], true)
        }
        XCTAssertEqual(v1.request("object.put", params: ["key": "n1", "type": "Note", "value": ["text": "hi"]])?["result"]?["stored"], true)
        assertCleanExit(v1)

        let v2 = try start()
        let initialized = try XCTUnwrap(v2.request("initialize", params: ["appVersion": "2.0", "capabilities": ["events": true]])?["result"])
        XCTAssertEqual(initialized["appVersion"], "2.0")
        XCTAssertEqual(initialized["previousAppVersion"], "1.0")
        XCTAssertTrue(v2.send(#"{"jsonrpc":"2.0","id":5,"method":"cache.get","params":{"key":"k"}}"#))
        let messages = v2.readUntilResponse(id: 5)
        XCTAssertEqual(messages.first?["method"], "cache.cleared", "\(messages)")
        XCTAssertEqual(messages.first?["params"], ["cache": "default", "tier": "all", "reason": "appVersion", "from": "1.0", "to": "2.0"])
        XCTAssertEqual(messages.last?["result"]?["found"], false, "the purgeable cache was wiped")
        XCTAssertEqual(v2.request("object.get", params: ["key": "n1"])?["result"]?["found"], false, "objects are entries, wiped with them")
        XCTAssertEqual(get(v2, "keep", "k"), true, "persistsAcrossVersions keeps its entries")
        XCTAssertEqual(get(v2, "notes", "k"), true, "a durable store is never wiped")
        XCTAssertEqual(v2.request("schema.get", params: ["type": "Note"])?["result"]?["schema"]?["version"], "1", "schemas are definitions, never wiped")
        XCTAssertEqual(v2.request("cache.set", params: ["key": "k", "value": 2])?["result"]?["stored"], true)
        assertCleanExit(v2)

        // The same version again wipes nothing; nor does a process that declares none.
        let again = try start(["--app-version", "2.0"])
        XCTAssertEqual(get(again, "default", "k"), true)
        assertCleanExit(again)
        let undeclared = try start()
        XCTAssertEqual(get(undeclared, "default", "k"), true)
        assertCleanExit(undeclared)

        // --app-version alone (no initialize) applies from the first request.
        let v3 = try start(["--app-version", "3.0"])
        XCTAssertEqual(get(v3, "default", "k"), false)
        XCTAssertEqual(get(v3, "notes", "k"), true)
        assertCleanExit(v3)
    }

    func testAProcessWhoseCacheANewerProcessClaimedReadsItEmptyAndMayNotWriteToIt() throws {
        let v1 = try start(["--app-version", "1.0"])
        XCTAssertEqual(v1.request("cache.set", params: ["key": "k", "value": "1.0"])?["result"]?["stored"], true)
        XCTAssertEqual(v1.request("cache.open", params: ["cache": "notes", "kind": "store"])?["result"]?["created"], true)
        XCTAssertEqual(v1.request("cache.set", params: ["cache": "notes", "key": "n", "value": "1.0"])?["result"]?["stored"], true)

        // 2.0's first use claims the cache while 1.0 writes to it: whichever
        // comes first, nothing 1.0 writes reaches 2.0.
        let v2 = try start(["--app-version", "2.0"])
        XCTAssertTrue(v1.send(#"{"jsonrpc":"2.0","id":20,"method":"cache.set","params":{"key":"k","value":"1.0 in flight"}}"#))
        XCTAssertTrue(v2.send(#"{"jsonrpc":"2.0","id":21,"method":"cache.get","params":{"key":"k"}}"#))
        let inFlight = try XCTUnwrap(v1.readUntilResponse(id: 20).last)
        XCTAssertTrue(inFlight["result"]?["stored"] == true || inFlight["error"]?["code"] == -31070, "\(inFlight)")
        XCTAssertEqual(v2.readUntilResponse(id: 21).last?["result"]?["found"], false)
        XCTAssertEqual(get(v2, "default", "k"), false, "what 1.0 wrote before the claim was wiped by it")
        XCTAssertEqual(v2.request("cache.set", params: ["key": "k", "value": "2.0"])?["result"]?["stored"], true)

        // 1.0 used the cache before 2.0 claimed it: it reads it as empty now, and may not write to it.
        XCTAssertEqual(get(v1, "default", "k"), false, "2.0's data is never served to 1.0")
        XCTAssertEqual(v1.request("cache.has", params: ["key": "k"])?["result"]?["found"], false)
        XCTAssertEqual(v1.request("cache.keys", params: [:])?["result"]?["keys"], [])
        let refused = v1.request("cache.set", params: ["key": "k", "value": "1.0 late"])?["error"]
        XCTAssertEqual(refused?["code"], -31070)
        XCTAssertEqual(refused?["data"], ["cache": "default", "appVersion": "1.0", "cacheAppVersion": "2.0"])
        XCTAssertEqual(v1.request("cache.remove", params: ["key": "k"])?["error"]?["code"], -31070)
        XCTAssertNotNil(v1.request("store.clear", params: [:])?["result"], "clears what is 1.0's, leaves 2.0's cache alone")
        XCTAssertEqual(get(v1, "notes", "n"), true, "a durable store belongs to every version")
        XCTAssertEqual(v1.request("cache.set", params: ["cache": "notes", "key": "n", "value": "1.0 again"])?["result"]?["stored"], true)
        XCTAssertEqual(v2.request("cache.get", params: ["key": "k"])?["result"]?["value"], "2.0", "nothing of 1.0's reached 2.0's cache")

        // A process of 1.0 started now claims the cache back, as any first use does.
        let again = try start(["--app-version", "1.0"])
        XCTAssertEqual(get(again, "default", "k"), false)
        XCTAssertEqual(again.request("cache.set", params: ["key": "k", "value": "1.0 anew"])?["result"]?["stored"], true)
        XCTAssertEqual(v2.request("cache.set", params: ["key": "k", "value": "2.0 late"])?["error"]?["code"], -31070)
        XCTAssertEqual(v1.request("cache.get", params: ["key": "k"])?["result"]?["value"], "1.0 anew", "1.0's data again, served to 1.0")
        for larder in [v1, v2, again] { assertCleanExit(larder) }
    }
}

/// The same with each process a sidecar of its own on one store on PostgreSQL.
final class PostgreSQLAppVersionTests: AppVersionTests {
    private var store: PostgresTestStore?

    override func setUpWithError() throws {
        try super.setUpWithError()
        store = try PostgresTestStore("appversion")
    }

    override func tearDown() {
        store?.drop()
        super.tearDown()
    }

    override func storeArguments() throws -> [String] { try XCTUnwrap(store).arguments }

    // Listed again: XCTest on Linux finds only the test methods a class declares itself.
    override func testAProcessWhoseCacheANewerProcessClaimedReadsItEmptyAndMayNotWriteToIt() throws {
        try super.testAProcessWhoseCacheANewerProcessClaimedReadsItEmptyAndMayNotWriteToIt()
    }
}
