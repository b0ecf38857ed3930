import XCTest
@testable import LarderCore

final class CacheStatsTests: StoreTestCase {
    func testHitsAndMissesPerTier() throws {
        let cache = try openCache(makeStore())
        try cache.put("k", "v")
        _ = try cache.text("k")                   // memory hit
        _ = try cache.text("k")                   // memory hit
        _ = try cache.text("missing")             // memory miss, disk miss
        _ = try cache.clear(group: nil, tier: .memory)
        _ = try cache.text("k")                   // memory miss, disk hit
        _ = try cache.text("k")                   // memory hit
        XCTAssertEqual(cache.stats.memory.hits, 3)
        XCTAssertEqual(cache.stats.memory.misses, 2)
        XCTAssertEqual(cache.stats.disk.hits, 1)
        XCTAssertEqual(cache.stats.disk.misses, 1)
        XCTAssertEqual(cache.stats.memory.evictions, 0)
        XCTAssertEqual(cache.stats.disk.evictions, 0)
    }

    func testExpiredEntryCountsAsAMiss() throws {
        let clock = Clock(fixedAt: 0)
        let cache = try openCache(makeStore(clock: clock)) { $0.lifespan = 10 }
        try cache.put("k", "v")
        _ = clock.advance(milliseconds: 10)
        XCTAssertNil(try cache.text("k"))
        XCTAssertEqual(cache.stats.memory.hits, 0)
        XCTAssertEqual(cache.stats.memory.misses, 1)
    }

    func testExpiredEntryReturnedCountsAsAHit() throws {
        let clock = Clock(fixedAt: 0)
        let cache = try openCache(makeStore(clock: clock)) { $0.lifespan = 10; $0.returnsExpired = true }
        try cache.put("k", "v")
        _ = clock.advance(milliseconds: 10)
        XCTAssertEqual(try cache.lookup("k")?.expired, true)
        XCTAssertEqual(cache.stats.memory.hits, 1)
        XCTAssertEqual(cache.stats.memory.misses, 0)
    }

    func testHasDoesNotCount() throws {
        let cache = try openCache(makeStore())
        try cache.put("k", "v")
        _ = try cache.has(EntryKey(group: "g", key: "k"))
        _ = try cache.has(EntryKey(group: "g", key: "missing"))
        XCTAssertEqual(cache.stats.memory.hits + cache.stats.memory.misses, 0)
        XCTAssertEqual(cache.stats.disk.hits + cache.stats.disk.misses, 0)
    }

    func testEvictionsPerTier() throws {
        let clock = Clock(fixedAt: 0)
        let cache = try openCache(makeStore(clock: clock)) { $0.memoryMaxCount = 1; $0.diskMaxCount = 2; $0.lifespan = 10 }
        try cache.put("a", "v")
        try cache.put("b", "v")      // memory evicts a
        try cache.put("c", "v")      // memory evicts b, disk evicts a
        XCTAssertEqual(cache.stats.memory.evictions, 2)
        XCTAssertEqual(cache.stats.disk.evictions, 1)
        _ = clock.advance(milliseconds: 10)
        XCTAssertEqual(try cache.purgeExpired(group: nil), 2)
        XCTAssertEqual(cache.stats.disk.evictions, 3)
        XCTAssertEqual(cache.stats.memory.evictions, 2)
    }

    func testRemoveAndClearAreNotEvictions() throws {
        let cache = try openCache(makeStore())
        try cache.put("a", "v")
        try cache.put("b", "v")
        _ = try cache.remove(EntryKey(group: "g", key: "a"))
        _ = try cache.clear(group: nil, tier: .all)
        XCTAssertEqual(cache.stats.memory.evictions, 0)
        XCTAssertEqual(cache.stats.disk.evictions, 0)
    }
}
