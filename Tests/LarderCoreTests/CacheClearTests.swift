import XCTest
@testable import LarderCore

final class CacheClearTests: StoreTestCase {
    private func filled(_ store: Store, persistent: Bool = true) throws -> Cache {
        let cache = try openCache(store) { $0.persistent = persistent }
        try cache.put("a", "11", group: "g1")
        try cache.put("b", "22", group: "g1")
        try cache.put("a", "333", group: "g2")
        return cache
    }

    func testClearMemoryTierKeepsDisk() throws {
        let store = try makeStore()
        let log = EventLog()
        log.attach(to: store)
        let cache = try filled(store)
        XCTAssertEqual(try cache.clear(group: nil, tier: .memory), 3)
        XCTAssertEqual(log.events, [.cleared(cache: "c", group: nil, tier: .memory)])
        XCTAssertEqual(cache.memoryCount, 0)
        XCTAssertEqual(cache.memoryBytes, 0)
        XCTAssertEqual(cache.count, 3)
        XCTAssertEqual(cache.bytes, 7)
        XCTAssertEqual(try cache.lookup("a", group: "g2")?.tier, .disk)
    }

    func testClearMemoryTierOfOneGroup() throws {
        let store = try makeStore()
        let cache = try filled(store)
        XCTAssertEqual(try cache.clear(group: "g1", tier: .memory), 2)
        XCTAssertEqual(cache.memoryCount, 1)
        XCTAssertEqual(try cache.lookup("a", group: "g2")?.tier, .memory)
        XCTAssertEqual(try cache.lookup("a", group: "g1")?.tier, .disk)
    }

    func testClearOneGroupOfEveryTier() throws {
        let store = try makeStore()
        let log = EventLog()
        log.attach(to: store)
        let cache = try filled(store)
        XCTAssertEqual(try cache.clear(group: "g1", tier: .all), 2)
        XCTAssertEqual(log.events, [.cleared(cache: "c", group: "g1", tier: .all)])
        XCTAssertNil(try cache.text("a", group: "g1"))
        XCTAssertNil(try cache.text("b", group: "g1"))
        XCTAssertEqual(try cache.text("a", group: "g2"), "333")
        XCTAssertEqual(cache.diskTotals.count, 1)
        XCTAssertEqual(cache.diskTotals.bytes, 3)
        XCTAssertEqual(try cache.allKeys(group: "g1"), [])
        store.close()
        let reopened = try makeStore()
        let again = try XCTUnwrap(reopened.cache(named: "c", create: false))
        XCTAssertEqual(again.count, 1)
        XCTAssertEqual(again.bytes, 3)
    }

    func testClearDiskTierEmptiesTheCache() throws {
        let store = try makeStore()
        let log = EventLog()
        log.attach(to: store)
        let cache = try filled(store)
        XCTAssertEqual(try cache.clear(group: nil, tier: .disk), 3)
        XCTAssertEqual(log.events, [.cleared(cache: "c", group: nil, tier: .disk)])
        XCTAssertEqual(cache.count, 0)
        XCTAssertEqual(cache.bytes, 0)
        // Nothing is served from memory that the disk no longer holds.
        XCTAssertNil(try cache.text("a", group: "g1"))
        XCTAssertEqual(cache.memoryCount, 0)
    }

    func testClearAll() throws {
        let store = try makeStore()
        let log = EventLog()
        log.attach(to: store)
        let cache = try filled(store)
        _ = try cache.clear(group: nil, tier: .memory) // part on disk only
        _ = try cache.text("a", group: "g1")
        XCTAssertEqual(try cache.clear(group: nil, tier: .all), 3)
        XCTAssertEqual(log.events.count, 2)
        XCTAssertEqual(log.events.last, .cleared(cache: "c", group: nil, tier: .all))
        XCTAssertEqual(cache.count, 0)
        XCTAssertEqual(cache.memoryCount, 0)
        XCTAssertEqual(try cache.allKeys(group: "g1"), [])
        XCTAssertEqual(try cache.allKeys(group: "g2"), [])
        // Evictions are not reported for a clear.
        XCTAssertTrue(log.evictions.isEmpty)
    }

    func testClearEmptyGroupStillReportsOnce() throws {
        let store = try makeStore()
        let log = EventLog()
        log.attach(to: store)
        let cache = try filled(store)
        XCTAssertEqual(try cache.clear(group: "nope", tier: .all), 0)
        XCTAssertEqual(log.events, [.cleared(cache: "c", group: "nope", tier: .all)])
        XCTAssertEqual(cache.count, 3)
    }

    func testClearInAMemoryOnlyCache() throws {
        let store = try makeStore()
        let log = EventLog()
        log.attach(to: store)
        let cache = try filled(store, persistent: false)
        XCTAssertEqual(try cache.clear(group: "g1", tier: .all), 2)
        XCTAssertEqual(log.events, [.cleared(cache: "c", group: "g1", tier: .all)])
        XCTAssertEqual(cache.count, 1)
        XCTAssertEqual(try cache.clear(group: nil, tier: .memory), 1)
        XCTAssertEqual(cache.count, 0)
        XCTAssertEqual(log.events.count, 2)
    }

    func testClearOnlyAffectsItsCache() throws {
        let store = try makeStore()
        let cache = try filled(store)
        let other = try openCache(store, "other")
        try other.put("a", "x", group: "g1")
        _ = try cache.clear(group: nil, tier: .all)
        XCTAssertEqual(try other.text("a", group: "g1"), "x")
        XCTAssertEqual(other.count, 1)
    }
}
