import XCTest
@testable import LarderCore

/// A durable store (`kind: .store`) works as a cache does for expiry — a
/// lifespan, per-entry TTLs, `returnsExpired`, a touch that revives — but
/// what expires stays until the client removes it: no purge, no eviction,
/// no store budget takes it (SPEC 6.9, Cashier's NOPersistentStore).
final class DurableStoreExpiryTests: StoreTestCase {
    private func key(_ k: String) -> EntryKey { EntryKey(group: "g", key: k) }

    func testExpiredEntriesReadAsInvalidAndATouchRevivesThem() throws {
        let clock = Clock(fixedAt: 1_000_000)
        let store = try makeStore(clock: clock)
        let drafts = try openCache(store, "drafts") { $0.kind = .store; $0.lifespan = 1000 }
        let kept = try openCache(store, "kept") { $0.kind = .store; $0.returnsExpired = true }
        try drafts.put("short", "1")
        try drafts.put("ttl", "2", ttl: 5000)
        try kept.put("k", "3", ttl: 500)
        try store.commit()
        XCTAssertTrue(clock.advance(milliseconds: 2000))

        XCTAssertNil(try drafts.lookup("short"), "expired: a miss, as in a cache")
        XCTAssertEqual(try drafts.has(key("short")).valid, false)
        XCTAssertEqual(try drafts.has(key("short")).found, true)
        XCTAssertEqual(try drafts.text("ttl"), "2", "its own ttl outlives the lifespan")
        XCTAssertEqual(try drafts.allKeys(), ["ttl"])
        XCTAssertEqual(try kept.lookup("k")?.expired, true, "returnsExpired hands it back, marked")

        XCTAssertEqual(try drafts.touch(key("short")), .revived)
        XCTAssertEqual(try drafts.text("short"), "1")
    }

    func testNothingButTheClientRemovesAnExpiredEntry() throws {
        let clock = Clock(fixedAt: 1_000_000)
        let store = try makeStore(clock: clock)
        store.maxStoreBytes = 100
        let log = EventLog()
        log.attach(to: store)
        let drafts = try openCache(store, "drafts") { $0.kind = .store; $0.lifespan = 1000; $0.memoryMaxCount = 1 }
        let cache = try openCache(store, "c")
        try drafts.put("d1", String(repeating: "x", count: 40))
        try drafts.put("d2", String(repeating: "x", count: 40), ttl: 10)
        try store.commit()
        XCTAssertTrue(clock.advance(milliseconds: 2000))

        XCTAssertNil(drafts.purgeDue, "the background purge never looks at a store")
        XCTAssertEqual(try drafts.purgeExpired(limit: 64), 0)
        assertInvalidArgument(field: "cache") { _ = try drafts.purgeExpired(group: nil) }
        // Over the budget, the cache gives way; the store's expired entries do not.
        try cache.put("c1", String(repeating: "x", count: 30))
        XCTAssertEqual(try store.budgetStatus()?.bytes, 80)
        XCTAssertEqual(log.evictedKeys(tier: .disk, reason: .storeBudget), ["c1"])
        XCTAssertEqual(log.evictedKeys(tier: .disk, reason: .expired), [])
        try store.commit()
        XCTAssertEqual(drafts.count, 2)
        XCTAssertEqual(try drafts.touch(key("d2")), .revived)
        XCTAssertEqual(try drafts.text("d2")?.count, 40)
    }

    func testAStoreRefusesWhatWouldRemoveItsEntries() throws {
        let store = try makeStore()
        assertInvalidArgument(field: "disk.maxCount") { _ = try self.openCache(store, "s") { $0.kind = .store; $0.diskMaxCount = 10 } }
        assertInvalidArgument(field: "purgeExpiredAfter") { _ = try self.openCache(store, "s") { $0.kind = .store; $0.purgeExpiredAfter = .some(60_000) } }
        let s = try openCache(store, "s") { $0.kind = .store; $0.purgeExpiredAfter = .some(nil) }
        assertInvalidArgument(field: "purgeExpiredAfter") { _ = try self.openCache(store, "s") { $0.purgeExpiredAfter = .some(0) } }
        XCTAssertEqual(try openCache(store, "s") { $0.lifespan = 60_000; $0.returnsExpired = true }.config.lifespan, 60_000)
        try s.put("k", "v", ttl: 1000)
        XCTAssertEqual(try s.lookup("k")?.expiresAt, 1_001_000)
    }
}
