import XCTest
import LarderJSON

/// Cashier's rule, across processes: data a cache holds is served only to the
/// app version that wrote it, unless the cache persists across versions or is
/// a durable store; schemas survive; no declared version wipes nothing.
final class AppVersionTests: XCTestCase {
    private var dir = ""

    override func setUp() {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("larder-e2e-appversion-\(UUID().uuidString)").path
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: dir)
    }

    private func start(_ arguments: [String] = []) throws -> LarderProcess {
        try LarderProcess(["--store", dir] + arguments)
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
}
