import XCTest
@testable import LarderCore

/// `open` on an existing cache with new settings.
final class CacheReconfigureTests: StoreTestCase {
    func testLowerDiskLimitsAfterReopenEvictDown() throws {
        let store = try makeStore()
        let cache = try openCache(store) { $0.diskMaxCount = 10 }
        for k in ["a", "b", "c", "d", "e"] { try cache.put(k, "12345") }
        _ = try cache.text("a")
        try cache.put("f", "12345") // persists a's recency
        store.close()

        let reopened = try makeStore()
        let log = EventLog()
        log.attach(to: reopened)
        let again = try openCache(reopened) { $0.diskMaxCount = 3 }
        XCTAssertEqual(again.config.disk.maxCount, 3)
        XCTAssertEqual(again.count, 3)
        XCTAssertEqual(log.evictedKeys(tier: .disk), ["b", "c", "d"])
        XCTAssertEqual(try again.allKeys(), ["a", "e", "f"])

        let moreLog = EventLog()
        moreLog.attach(to: reopened)
        _ = try openCache(reopened) { $0.diskMaxBytes = 10 }
        // Recency now: e (set), a (read after e was set), f.
        XCTAssertEqual(moreLog.evictedKeys(tier: .disk), ["e"])
        XCTAssertEqual(again.diskTotals.count, 2)
        XCTAssertEqual(again.diskTotals.bytes, 10)
        reopened.close()

        let third = try makeStore()
        let last = try XCTUnwrap(third.cache(named: "c", create: false))
        XCTAssertEqual(last.config.disk, CacheConfig.Limits(maxCount: 3, maxBytes: 10))
        XCTAssertEqual(try last.allKeys(), ["a", "f"])
    }

    func testLowerMemoryLimitsEvictFromMemoryOnly() throws {
        let store = try makeStore()
        let log = EventLog()
        log.attach(to: store)
        let cache = try openCache(store)
        for k in ["a", "b", "c", "d"] { try cache.put(k, "v") }
        _ = try cache.text("a")
        let again = try openCache(store) { $0.memoryMaxCount = 2 }
        XCTAssertTrue(again === cache)
        XCTAssertEqual(cache.memoryCount, 2)
        XCTAssertEqual(log.evictedKeys(tier: .memory), ["b", "c"])
        XCTAssertEqual(cache.count, 4)
        XCTAssertEqual(try cache.lookup("a")?.tier, .memory)
        XCTAssertEqual(try cache.lookup("b")?.tier, .disk)

        _ = try openCache(store) { $0.memoryMaxBytes = 1 }
        XCTAssertEqual(cache.memoryCount, 1)
    }

    func testUnchangedSettingsDoNothing() throws {
        let store = try makeStore()
        let cache = try openCache(store) { $0.diskMaxCount = 2 }
        try cache.put("a", "v")
        try cache.put("b", "v")
        try store.commit()
        let log = EventLog()
        log.attach(to: store)
        let (again, created) = try store.open("c", change: { var c = CacheConfigChange(); c.diskMaxCount = 2; return c }())
        XCTAssertFalse(created)
        XCTAssertTrue(again === cache)
        XCTAssertTrue(log.events.isEmpty)
        XCTAssertFalse(store.hasPendingWrites)
    }

    func testSettingsLeftOutStayAsTheyWere() throws {
        let store = try makeStore()
        _ = try openCache(store) { $0.lifespan = 2500; $0.memoryMaxCount = 9 }
        let cache = try openCache(store) { $0.returnsExpired = true }
        XCTAssertEqual(cache.config.lifespan, 2500)
        XCTAssertEqual(cache.config.memory.maxCount, 9)
        XCTAssertTrue(cache.config.returnsExpired)
        store.close()
        let reopened = try makeStore()
        let again = try openCache(reopened) { $0.diskMaxBytes = 100 }
        XCTAssertEqual(again.config.lifespan, 2500)
        XCTAssertEqual(again.config.memory.maxCount, 9)
        XCTAssertTrue(again.config.returnsExpired)
        XCTAssertEqual(again.config.disk.maxBytes, 100)
    }

    func testChangedLifespanAppliesToStoredEntries() throws {
        let clock = Clock(fixedAt: 0)
        let store = try makeStore(clock: clock)
        let cache = try openCache(store) { $0.lifespan = 10_000 }
        try cache.put("k", "v")
        _ = clock.advance(milliseconds: 2000)
        _ = try openCache(store) { $0.lifespan = 1000 }
        XCTAssertNil(try cache.lookup("k"))
        _ = try openCache(store) { $0.lifespan = 0 }
        XCTAssertNotNil(try cache.lookup("k"))
    }
}
