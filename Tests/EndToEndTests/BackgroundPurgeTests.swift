import XCTest
import LarderJSON

/// On the system clock, expired entries leave between requests without being
/// asked, with their events; a cache's `purgeExpiredAfter` keeps them (and
/// lets `cache.touch` revive them) for that long.
final class BackgroundPurgeTests: XCTestCase {
    func testExpiredEntriesAreRemovedBetweenRequests() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("larder-e2e-purge-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let larder = try LarderProcess(["--store", dir])
        XCTAssertEqual(larder.request("cache.subscribe", params: [:])?["result"]?["subscribed"], "*")
        XCTAssertNotNil(larder.request("cache.open", params: ["cache": "grace", "purgeExpiredAfter": 60])?["result"])
        XCTAssertEqual(larder.request("cache.set", params: ["key": "k", "value": 1, "ttl": 0.2])?["result"]?["stored"], true)
        XCTAssertEqual(larder.request("cache.set", params: ["cache": "grace", "key": "g", "value": 1, "ttl": 0.2])?["result"]?["stored"], true)

        // Nothing is sent; within the purge's interval (1 s) the expired entry goes.
        let event = try XCTUnwrap(larder.readMessage(timeout: 10), "no event; stderr: \(larder.stderrText)")
        XCTAssertEqual(event["method"], "cache.evicted")
        XCTAssertEqual(event["params"], ["cache": "default", "group": "", "key": "k", "tier": "disk", "reason": "expired"])
        XCTAssertEqual(larder.request("cache.has", params: ["key": "k"])?["result"], ["found": false, "valid": false])
        XCTAssertEqual(larder.request("cache.touch", params: ["cache": "grace", "key": "g"])?["result"], ["found": true, "revived": true],
                       "within its cache's grace the entry is still there to revive")
        assertCleanExit(larder)
    }
}
