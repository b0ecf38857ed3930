import XCTest
@testable import LarderCore

/// Memory limits of a persistent cache: they evict from memory only.
final class CacheMemoryLimitTests: StoreTestCase {
    func testMemoryMaxCountEvictsFromMemoryButKeepsOnDisk() throws {
        let store = try makeStore()
        let log = EventLog()
        log.attach(to: store)
        let cache = try openCache(store) { $0.memoryMaxCount = 2 }
        try cache.put("a", "1")
        try cache.put("b", "2")
        try cache.put("c", "3")
        XCTAssertEqual(cache.memoryCount, 2)
        XCTAssertEqual(cache.count, 3)
        XCTAssertEqual(cache.diskTotals.count, 3)
        XCTAssertEqual(log.evictions.map(\.key), ["a"])
        XCTAssertEqual(log.evictions.first?.tier, .memory)
        XCTAssertEqual(log.evictions.first?.reason, .capacity)
        XCTAssertEqual(log.evictions.first?.group, "g")
        XCTAssertEqual(cache.stats.memory.evictions, 1)
        XCTAssertEqual(cache.stats.disk.evictions, 0)

        // "a" is still served, from disk, and comes back into memory,
        // pushing out the least recently used ("b").
        let a = try XCTUnwrap(cache.lookup("a"))
        XCTAssertEqual(a.tier, .disk)
        XCTAssertEqual(String(decoding: a.entry.bytes, as: UTF8.self), "1")
        XCTAssertEqual(log.evictions.map(\.key), ["a", "b"])
        XCTAssertEqual(cache.memoryCount, 2)
        XCTAssertEqual(try cache.lookup("c")?.tier, .memory)
        XCTAssertEqual(try cache.lookup("b")?.tier, .disk)
        XCTAssertEqual(cache.count, 3)
    }

    func testMemoryGetRefreshesRecency() throws {
        let store = try makeStore()
        let log = EventLog()
        log.attach(to: store)
        let cache = try openCache(store) { $0.memoryMaxCount = 2 }
        try cache.put("a", "1")
        try cache.put("b", "2")
        XCTAssertEqual(try cache.lookup("a")?.tier, .memory)
        try cache.put("c", "3")
        XCTAssertEqual(log.evictedKeys(tier: .memory), ["b"])
        XCTAssertEqual(try cache.lookup("a")?.tier, .memory)
    }

    func testMemoryMaxBytesEvictsFromMemoryButKeepsOnDisk() throws {
        let store = try makeStore()
        let log = EventLog()
        log.attach(to: store)
        // Entries of 10 bytes, an eighth of the tier: the largest it keeps.
        let cache = try openCache(store) { $0.memoryMaxBytes = 80 }
        for k in 0..<8 { try cache.put("k\(k)", String(repeating: "\(k)", count: 10)) }
        XCTAssertEqual(cache.memoryBytes, 80)
        XCTAssertEqual(cache.memoryCount, 8)
        try cache.put("k8", String(repeating: "8", count: 10))
        XCTAssertEqual(cache.memoryBytes, 80)
        XCTAssertEqual(cache.memoryCount, 8)
        XCTAssertEqual(cache.bytes, 90)
        XCTAssertEqual(log.evictedKeys(tier: .memory), ["k0"])
        XCTAssertEqual(try cache.text("k0"), String(repeating: "0", count: 10))
    }

    func testValueOverAnEighthOfTheMemoryLimitIsServedFromDisk() throws {
        let store = try makeStore()
        let log = EventLog()
        log.attach(to: store)
        let cache = try openCache(store) { $0.memoryMaxBytes = 80 }
        try cache.put("small", "12345")
        try cache.put("big", String(repeating: "x", count: 11))
        XCTAssertEqual(cache.memoryCount, 1)
        XCTAssertEqual(cache.count, 2)
        XCTAssertTrue(log.events.isEmpty, "the small entry must not be pushed out for one that is not kept: \(log.events)")
        let big = try XCTUnwrap(cache.lookup("big"))
        XCTAssertEqual(big.tier, .disk)
        XCTAssertEqual(big.entry.size, 11)
        XCTAssertEqual(try cache.lookup("big")?.tier, .disk, "not kept in memory after the disk read either")
        XCTAssertEqual(try cache.lookup("small")?.tier, .memory)
    }

    func testAMemoryOnlyCacheKeepsValuesUpToTheWholeLimit() throws {
        let cache = try openCache(makeStore()) { $0.persistent = false; $0.memoryMaxBytes = 80 }
        try cache.put("big", String(repeating: "x", count: 80))
        XCTAssertEqual(try cache.lookup("big")?.tier, .memory)
        XCTAssertEqual(cache.memoryBytes, 80)
    }

    func testALimitOfZeroKeepsValuesOfAnySize() throws {
        let cache = try openCache(makeStore()) { $0.memoryMaxBytes = 0 }
        try cache.put("big", String(repeating: "x", count: 1 << 16))
        XCTAssertEqual(try cache.lookup("big")?.tier, .memory)
    }

    func testGrowingAnEntryBeyondMemoryLimitDropsTheOldCopyFromMemory() throws {
        let cache = try openCache(makeStore()) { $0.memoryMaxBytes = 80 }
        try cache.put("k", "short")
        XCTAssertEqual(cache.memoryCount, 1)
        try cache.put("k", String(repeating: "y", count: 20))
        XCTAssertEqual(cache.memoryCount, 0)
        XCTAssertEqual(try cache.text("k"), String(repeating: "y", count: 20))
    }

    func testReplacingAnEntryCountsOnlyItsNewSizeInMemory() throws {
        let store = try makeStore()
        let log = EventLog()
        log.attach(to: store)
        let cache = try openCache(store) { $0.memoryMaxBytes = 80 }
        try cache.put("a", String(repeating: "a", count: 10))
        try cache.put("a", String(repeating: "a", count: 9))
        for k in 0..<7 { try cache.put("b\(k)", String(repeating: "b", count: 10)) }
        XCTAssertEqual(cache.memoryBytes, 79)
        XCTAssertTrue(log.events.isEmpty)
    }
}
