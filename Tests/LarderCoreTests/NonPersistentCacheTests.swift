import XCTest
@testable import LarderCore

/// `persistent: false`: memory only, whatever the store.
final class NonPersistentCacheTests: StoreTestCase {
    func testKeepsNoEntriesAcrossAReopen() throws {
        let store = try makeStore()
        let cache = try openCache(store, "volatile") { $0.persistent = false; $0.memoryMaxCount = 7 }
        try cache.put("k", "v")
        XCTAssertEqual(try cache.text("k"), "v")
        XCTAssertEqual(try cache.lookup("k")?.tier, .memory)
        XCTAssertEqual(cache.count, 1)
        XCTAssertEqual(cache.diskTotals.count, 0)
        try store.commit()
        store.close()

        let reopened = try makeStore()
        // The cache and its settings remain; its entries do not.
        let again = try XCTUnwrap(reopened.cache(named: "volatile", create: false))
        XCTAssertFalse(again.config.persistent)
        XCTAssertEqual(again.config.memory.maxCount, 7)
        XCTAssertNil(try again.text("k"))
        XCTAssertFalse(try again.contains("k"))
        XCTAssertEqual(again.count, 0)
        XCTAssertEqual(try again.allKeys(), [])
    }

    func testMissCountsOnlyInMemoryStats() throws {
        let cache = try openCache(makeStore()) { $0.persistent = false }
        XCTAssertNil(try cache.text("nothing"))
        try cache.put("k", "v")
        XCTAssertNotNil(try cache.text("k"))
        XCTAssertEqual(cache.stats.memory.misses, 1)
        XCTAssertEqual(cache.stats.memory.hits, 1)
        XCTAssertEqual(cache.stats.disk.hits, 0)
        XCTAssertEqual(cache.stats.disk.misses, 0)
    }

    func testMemoryLimitsAreItsOnlyLimits() throws {
        let store = try makeStore()
        let log = EventLog()
        log.attach(to: store)
        let cache = try openCache(store) {
            $0.persistent = false
            $0.memoryMaxCount = 3
            $0.diskMaxCount = 1
            $0.diskMaxBytes = 2
        }
        try cache.put("a", "aaaaa")  // larger than disk.maxBytes: irrelevant here
        try cache.put("b", "b")
        try cache.put("c", "c")
        XCTAssertEqual(cache.count, 3)
        XCTAssertTrue(log.events.isEmpty)
        _ = try cache.text("a")
        try cache.put("d", "d")
        XCTAssertEqual(log.events, [.evicted(cache: "c", group: "g", key: "b", tier: .memory, reason: .capacity)])
        XCTAssertEqual(Set(try cache.allKeys()), ["a", "c", "d"])
        XCTAssertNil(try cache.text("b"))
        XCTAssertEqual(cache.count, 3)
        XCTAssertEqual(cache.bytes, 7)
        XCTAssertEqual(cache.stats.memory.evictions, 1)
    }

    func testMemoryMaxBytesEvictsAndRefusesOversizedValues() throws {
        let store = try makeStore()
        let log = EventLog()
        log.attach(to: store)
        let cache = try openCache(store) { $0.persistent = false; $0.memoryMaxBytes = 10 }
        try cache.put("a", "aaaa")
        try cache.put("b", "bbbb")
        try cache.put("c", "cccc")
        XCTAssertEqual(log.evictedKeys(tier: .memory), ["a"])
        XCTAssertEqual(cache.bytes, 8)
        assertInvalidArgument(field: "value") { try cache.put("big", "0123456789A") }
        XCTAssertNil(try cache.text("big"))
        XCTAssertEqual(Set(try cache.allKeys()), ["b", "c"])
    }

    func testRemoveAndTouch() throws {
        let clock = Clock(fixedAt: 0)
        let cache = try openCache(makeStore(clock: clock)) { $0.persistent = false; $0.lifespan = 100 }
        try cache.put("k", "v")
        XCTAssertEqual(try cache.touch(EntryKey(group: "g", key: "k")), .touched)
        XCTAssertEqual(try cache.touch(EntryKey(group: "g", key: "other")), .absent)
        XCTAssertTrue(try cache.remove(EntryKey(group: "g", key: "k")))
        XCTAssertFalse(try cache.remove(EntryKey(group: "g", key: "k")))
        XCTAssertNil(try cache.text("k"))
    }

    func testDoesNotWriteToTheStore() throws {
        let store = try makeStore()
        let cache = try openCache(store) { $0.persistent = false }
        try store.commit()
        try cache.put("k", "v")
        XCTAssertFalse(store.hasPendingWrites)
    }
}
