import XCTest
@testable import LarderCore

/// The store-wide disk budget (SPEC 6.11): purgeable caches give way, least
/// recently used across caches and expired entries first; durable stores never.
final class StoreBudgetTests: StoreTestCase {
    private func budgeted(_ maxBytes: Int, clock: Clock = Clock(fixedAt: 1_000_000)) throws -> (Store, EventLog) {
        let store = try makeStore(clock: clock)
        store.maxStoreBytes = maxBytes
        let log = EventLog()
        log.attach(to: store)
        return (store, log)
    }

    func testTheLeastRecentlyUsedEntryOfAnyPurgeableCacheGoes() throws {
        let (store, log) = try budgeted(100)
        let a = try openCache(store, "a")
        let b = try openCache(store, "b")
        try a.put("a1", String(repeating: "x", count: 30))
        try b.put("b1", String(repeating: "x", count: 30))
        try a.put("a2", String(repeating: "x", count: 30))
        _ = try a.text("a1")
        try b.put("b2", String(repeating: "x", count: 30))
        XCTAssertEqual(log.evictedKeys(tier: .disk, reason: .storeBudget), ["b1"], "a1 was read after b1 was written")
        XCTAssertEqual(try store.budgetStatus(), Store.BudgetStatus(maxBytes: 100, bytes: 90))
        XCTAssertNil(try b.text("b1"))
        XCTAssertEqual(b.stats.disk.evictions, 1)
    }

    func testExpiredEntriesGoFirst() throws {
        let clock = Clock(fixedAt: 1_000_000)
        let (store, log) = try budgeted(100, clock: clock)
        let a = try openCache(store, "a")
        let b = try openCache(store, "b")
        try a.put("old", String(repeating: "x", count: 40))
        try b.put("short", String(repeating: "x", count: 40), ttl: 10)
        XCTAssertTrue(clock.advance(milliseconds: 20))
        try a.put("new", String(repeating: "x", count: 40))
        XCTAssertEqual(log.evictedKeys(tier: .disk, reason: .expired), ["short"])
        XCTAssertEqual(log.evictedKeys(tier: .disk, reason: .storeBudget), [])
        XCTAssertEqual(try a.text("old")?.count, 40)
    }

    func testDurableStoresAreNeverEvictedAndSayWhenTheyAloneExceedIt() throws {
        let (store, log) = try budgeted(100)
        let cache = try openCache(store, "c")
        let durable = try openCache(store, "d") { $0.kind = .store }
        try cache.put("c1", String(repeating: "x", count: 50))
        try durable.put("d1", String(repeating: "x", count: 60))
        XCTAssertEqual(log.evictedKeys(tier: .disk, reason: .storeBudget), ["c1"])
        try durable.put("d2", String(repeating: "x", count: 60))
        XCTAssertEqual(try store.budgetStatus(), Store.BudgetStatus(maxBytes: 100, bytes: 120))
        XCTAssertTrue(try XCTUnwrap(store.budgetStatus()).exceeded)
        XCTAssertEqual(try durable.allKeys(), ["d1", "d2"], "a write to a store still succeeds")
        assertInvalidArgument(field: "value") { try cache.put("huge", String(repeating: "x", count: 101)) }
    }

    func testCachesAnotherRunWroteCountToo() throws {
        let store = try makeStore()
        let old = try openCache(store, "old")
        try old.put("o1", String(repeating: "x", count: 60))
        try store.commit()
        store.close()
        let (reopened, log) = try budgeted(100)
        let fresh = try openCache(reopened, "fresh")
        try fresh.put("f1", String(repeating: "x", count: 60))
        XCTAssertEqual(log.evictedKeys(tier: .disk, reason: .storeBudget), ["o1"], "a cache not yet used in this run is counted and evicted from")
    }

    func testWithoutABudgetNothingIsEvictedAcrossCaches() throws {
        let store = try makeStore()
        let log = EventLog()
        log.attach(to: store)
        let a = try openCache(store, "a")
        for i in 0..<50 { try a.put("k\(i)", String(repeating: "x", count: 100)) }
        XCTAssertNil(try store.budgetStatus())
        XCTAssertTrue(log.events.isEmpty)
    }
}
