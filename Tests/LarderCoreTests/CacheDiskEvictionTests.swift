import XCTest
@testable import LarderCore

private func key3(_ i: Int) -> String {
    let s = String(i)
    return "k" + String(repeating: "0", count: max(0, 3 - s.count)) + s
}

/// Disk limits of a persistent cache: entries go for real, least recently used first.
final class CacheDiskEvictionTests: StoreTestCase {
    func testDiskMaxCountEvictsLeastRecentlySet() throws {
        let store = try makeStore()
        let log = EventLog()
        log.attach(to: store)
        let cache = try openCache(store) { $0.diskMaxCount = 3 }
        for k in ["a", "b", "c", "d", "e"] { try cache.put(k, k) }
        XCTAssertEqual(cache.count, 3)
        XCTAssertEqual(try cache.allKeys(), ["c", "d", "e"])
        XCTAssertNil(try cache.text("a"))
        XCTAssertFalse(try cache.contains("b"))
        XCTAssertEqual(log.events, [
            .evicted(cache: "c", group: "g", key: "a", tier: .disk, reason: .capacity),
            .evicted(cache: "c", group: "g", key: "b", tier: .disk, reason: .capacity),
        ])
        XCTAssertEqual(cache.stats.disk.evictions, 2)
        XCTAssertEqual(cache.stats.memory.evictions, 0)
        // Gone from memory too.
        XCTAssertEqual(cache.memoryCount, 3)
    }

    func testMemoryHitRefreshesDiskRecency() throws {
        let store = try makeStore()
        let log = EventLog()
        log.attach(to: store)
        let cache = try openCache(store) { $0.diskMaxCount = 3 }
        for k in ["a", "b", "c"] { try cache.put(k, k) }
        XCTAssertEqual(try cache.lookup("a")?.tier, .memory)
        try cache.put("d", "d")
        XCTAssertEqual(log.evictedKeys(tier: .disk), ["b"])
        XCTAssertTrue(try cache.contains("a"))  // `has` looks without refreshing
        // Further writes go on evicting in recency order: c, then a (read before d was set), then d.
        try cache.put("e", "e")
        try cache.put("f", "f")
        try cache.put("g", "g")
        XCTAssertEqual(log.evictedKeys(tier: .disk), ["b", "c", "a", "d"])
        XCTAssertEqual(try cache.allKeys(), ["e", "f", "g"])
    }

    func testDiskHitRefreshesDiskRecency() throws {
        let store = try makeStore()
        let log = EventLog()
        log.attach(to: store)
        let cache = try openCache(store) { $0.diskMaxCount = 3 }
        for k in ["a", "b", "c"] { try cache.put(k, k) }
        try store.commit()
        _ = try cache.clear(group: nil, tier: .memory)
        XCTAssertEqual(try cache.lookup("a")?.tier, .disk)
        try cache.put("d", "d")
        XCTAssertEqual(log.evictedKeys(tier: .disk), ["b"])
        XCTAssertTrue(try cache.contains("a"))
    }

    func testReadRefreshIsKeptAcrossACommit() throws {
        let store = try makeStore()
        let log = EventLog()
        log.attach(to: store)
        let cache = try openCache(store) { $0.diskMaxCount = 3 }
        for k in ["a", "b", "c"] { try cache.put(k, k) }
        try store.commit()
        _ = try cache.text("a")
        try cache.put("x", "x")  // a write after the read persists its recency
        XCTAssertEqual(log.evictedKeys(tier: .disk), ["b"])
        try store.commit()
        store.close()

        let reopened = try makeStore()
        let log2 = EventLog()
        log2.attach(to: reopened)
        let again = try XCTUnwrap(reopened.cache(named: "c", create: false))
        try again.put("y", "y")
        XCTAssertEqual(log2.evictedKeys(tier: .disk), ["c"])
        try again.put("z", "z")
        XCTAssertEqual(log2.evictedKeys(tier: .disk), ["c", "a"])
    }

    func testTouchAndHasDoNotRefreshRecency() throws {
        let store = try makeStore()
        let log = EventLog()
        log.attach(to: store)
        let cache = try openCache(store) { $0.diskMaxCount = 2 }
        try cache.put("a", "a")
        try cache.put("b", "b")
        XCTAssertEqual(try cache.touch(EntryKey(group: "g", key: "a")), .touched)
        XCTAssertTrue(try cache.contains("a"))
        try cache.put("c", "c")
        XCTAssertEqual(log.evictedKeys(tier: .disk), ["a"])
    }

    func testDiskMaxBytesEvictsLeastRecentlyUsed() throws {
        let store = try makeStore()
        let log = EventLog()
        log.attach(to: store)
        let cache = try openCache(store) { $0.diskMaxBytes = 10 }
        try cache.put("a", "aaaa")
        try cache.put("b", "bbbb")
        _ = try cache.text("a")
        try cache.put("c", "cccc")
        XCTAssertEqual(log.events, [.evicted(cache: "c", group: "g", key: "b", tier: .disk, reason: .capacity)])
        XCTAssertEqual(cache.diskTotals.count, 2)
        XCTAssertEqual(cache.diskTotals.bytes, 8)
        XCTAssertEqual(try cache.allKeys(), ["a", "c"])
        // A value that needs several to go.
        try cache.put("big", "0123456789")
        XCTAssertEqual(log.evictedKeys(tier: .disk), ["b", "a", "c"])
        XCTAssertEqual(cache.diskTotals.count, 1)
        XCTAssertEqual(cache.diskTotals.bytes, 10)
        XCTAssertEqual(try cache.allKeys(), ["big"])
    }

    func testEachEvictionIsReportedOnceWithItsTier() throws {
        let store = try makeStore()
        let log = EventLog()
        log.attach(to: store)
        let cache = try openCache(store) { $0.memoryMaxCount = 2; $0.diskMaxCount = 3 }
        for k in ["a", "b", "c", "d"] { try cache.put(k, k) }
        // Memory dropped a then b; disk dropped a.
        XCTAssertEqual(log.evictions.map { "\($0.tier.rawValue):\($0.key)" }.sorted(),
                       ["disk:a", "memory:a", "memory:b"])
        // Entries already gone from memory still yield exactly one disk event each.
        try cache.put("e", "e")
        try cache.put("f", "f")
        let disk = log.evictions.filter { $0.tier == .disk }.map(\.key)
        XCTAssertEqual(disk, ["a", "b", "c"])
        XCTAssertEqual(Set(disk).count, disk.count)
        XCTAssertEqual(cache.stats.disk.evictions, 3)
        XCTAssertEqual(cache.stats.memory.evictions, log.evictions.filter { $0.tier == .memory }.count)
        XCTAssertTrue(log.evictions.allSatisfy { $0.reason == .capacity })
    }

    func testBatchLargerThanLimitKeepsTheNewest() throws {
        let store = try makeStore()
        let log = EventLog()
        log.attach(to: store)
        let cache = try openCache(store) { $0.diskMaxCount = 100 }
        let writes = (0..<300).map { Cache.Write(key: EntryKey(group: "g", key: key3($0)), kind: .data, bytes: [1], ttl: nil) }
        try cache.set(writes)
        XCTAssertEqual(cache.count, 100)
        XCTAssertEqual(try cache.allKeys().first, "k200")
        XCTAssertEqual(log.evictions.count, 200)
        XCTAssertEqual(Set(log.evictions.map(\.key)).count, 200)
        XCTAssertEqual(log.evictions.first?.key, "k000")
    }

    func testValueLargerThanDiskLimitIsRefused() throws {
        let store = try makeStore()
        let cache = try openCache(store) { $0.diskMaxBytes = 10 }
        try cache.put("fits", "0123456789")
        assertInvalidArgument(field: "value") { try cache.put("big", "0123456789A") }
        XCTAssertNil(try cache.text("big"))
        XCTAssertEqual(try cache.text("fits"), "0123456789")
        XCTAssertEqual(cache.count, 1)
    }

    func testEvictionsReachTheStoreFile() throws {
        let store = try makeStore()
        let cache = try openCache(store) { $0.diskMaxCount = 2 }
        for k in ["a", "b", "c", "d"] { try cache.put(k, k) }
        store.close()
        let reopened = try makeStore()
        let again = try XCTUnwrap(reopened.cache(named: "c", create: false))
        XCTAssertEqual(again.count, 2)
        XCTAssertEqual(try again.allKeys(), ["c", "d"])
    }
}
