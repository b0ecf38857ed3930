import XCTest
@testable import LarderCore

/// Expired data does not pile up: evictions take expired entries first, and
/// `purgeExpired(limit:)` (what the server runs between requests) removes
/// them after the cache's grace, soonest expired first, with events.
final class ExpiredDataTests: StoreTestCase {
    private let start: Int64 = 1_000_000
    private func advance(_ clock: Clock, _ ms: Int64) { XCTAssertTrue(clock.advance(milliseconds: ms)) }
    private func key(_ k: String) -> EntryKey { EntryKey(group: "g", key: k) }

    func testADiskEvictionTakesExpiredEntriesBeforeValidOnes() throws {
        let clock = Clock(fixedAt: start)
        let store = try makeStore(clock: clock)
        let log = EventLog()
        log.attach(to: store)
        let cache = try openCache(store) { $0.diskMaxCount = 3 }
        try cache.put("old", "1")
        try cache.put("short", "2", ttl: 1000)
        try cache.put("other", "3")
        advance(clock, 2000)
        // "short" was used last, yet it is the one that has expired.
        XCTAssertEqual(try cache.touch(key("short")), .revived)
        try cache.put("short", "2", ttl: 1000)
        advance(clock, 2000)
        try cache.put("new", "4")
        XCTAssertEqual(log.events, [.evicted(cache: "c", group: "g", key: "short", tier: .disk, reason: .expired)])
        XCTAssertEqual(try cache.allKeys(), ["new", "old", "other"])
    }

    func testAMemoryOnlyEvictionTakesExpiredEntriesBeforeValidOnes() throws {
        let clock = Clock(fixedAt: start)
        let store = try makeStore(clock: clock, inMemory: true)
        let log = EventLog()
        log.attach(to: store)
        let cache = try openCache(store) { $0.persistent = false; $0.memoryMaxCount = 3 }
        try cache.put("short", "1", ttl: 1000)
        try cache.put("a", "2")
        try cache.put("b", "3")
        advance(clock, 1500)
        try cache.put("c", "4")
        XCTAssertEqual(log.events, [.evicted(cache: "c", group: "g", key: "short", tier: .memory, reason: .expired)])
        XCTAssertEqual(Set(try cache.allKeys()), ["a", "b", "c"])
        // Nothing else has expired: the next eviction is by recency, without a look.
        try cache.put("d", "5")
        XCTAssertEqual(log.events.last, .evicted(cache: "c", group: "g", key: "a", tier: .memory, reason: .capacity))
    }

    func testPurgingRemovesExpiredEntriesAfterTheGraceSoonestFirst() throws {
        for persistent in [true, false] {
            let clock = Clock(fixedAt: start)
            let store = try makeStore(clock: clock, inMemory: true)
            let log = EventLog()
            log.attach(to: store)
            let cache = try openCache(store, persistent ? "p" : "m") { $0.persistent = persistent; $0.purgeExpiredAfter = .some(10_000) }
            try cache.put("late", "1", ttl: 3000)
            try cache.put("early", "2", ttl: 1000)
            try cache.put("never", "3")
            advance(clock, 5000)
            XCTAssertEqual(try cache.purgeExpired(limit: 64), 0, "within the grace: kept (and revivable)")
            advance(clock, 6500)
            XCTAssertEqual(try cache.purgeExpired(limit: 1), 1)
            XCTAssertEqual(log.evictedKeys(tier: persistent ? .disk : .memory, reason: .expired), ["early"])
            XCTAssertEqual(try cache.purgeExpired(limit: 64), 0, "\"late\" is not past its grace yet")
            advance(clock, 2000)
            XCTAssertEqual(try cache.purgeExpired(limit: 64), 1)
            XCTAssertEqual(log.evictedKeys(tier: persistent ? .disk : .memory, reason: .expired), ["early", "late"])
            XCTAssertEqual(try cache.allKeys(), ["never"])
        }
    }

    func testByDefaultExpiredEntriesGoAtOnceUnlessTheCacheReturnsThem() throws {
        let clock = Clock(fixedAt: start)
        let store = try makeStore(clock: clock)
        let plain = try openCache(store, "plain") { $0.lifespan = 1000 }
        let keeps = try openCache(store, "keeps") { $0.lifespan = 1000; $0.returnsExpired = true }
        for c in [plain, keeps] { try c.put("k", "v") }
        advance(clock, 1000)
        XCTAssertEqual(try plain.purgeExpired(limit: 64), 1)
        XCTAssertEqual(try keeps.purgeExpired(limit: 64), 0)
        XCTAssertTrue(try keeps.contains("k"))
        XCTAssertEqual(try store.purgeExpiredInBackground(budget: 1_000_000), false, "nothing is left to do")
    }

    func testThePurgeLooksOnlyAtCachesWithEntriesDue() throws {
        let clock = Clock(fixedAt: start)
        let store = try makeStore(clock: clock)
        for i in 0..<500 { try openCache(store, "plain\(i)").put("k", "v") }
        let expiring = try openCache(store, "expiring")
        let memoryOnly = try openCache(store, "memory only") { $0.persistent = false }
        try expiring.put("soon", "v", ttl: 1000)
        try memoryOnly.put("soon", "v", ttl: 2000)
        try store.commit()
        XCTAssertFalse(try store.purgeExpiredInBackground(budget: .max))
        XCTAssertEqual(store.caches.purgeLooks, 0, "nothing is due yet")

        advance(clock, 1000)
        XCTAssertFalse(try store.purgeExpiredInBackground(budget: .max))
        XCTAssertEqual(store.caches.purgeLooks, 1)
        XCTAssertEqual(try expiring.allKeys(), [])
        advance(clock, 1000)
        XCTAssertFalse(try store.purgeExpiredInBackground(budget: .max))
        XCTAssertEqual(store.caches.purgeLooks, 2)
        XCTAssertEqual(memoryOnly.memoryCount, 0)
        try store.commit()

        XCTAssertFalse(try store.purgeExpiredInBackground(budget: .max))
        XCTAssertEqual(store.caches.purgeLooks, 2, "an idle store with nothing left to expire looks at no cache")
    }

    func testCachesLoadedFromTheStoreArePurgedWhenTheirEntriesAreDue() throws {
        let clock = Clock(fixedAt: start)
        let writer = try makeStore(clock: clock)
        try openCache(writer, "expiring").put("soon", "v", ttl: 1000)
        for i in 0..<100 { try openCache(writer, "plain\(i)").put("k", "v") }
        try writer.commit()
        writer.close()

        let store = try makeStore(clock: clock)
        let expiring = try XCTUnwrap(store.cache(named: "expiring", create: false))
        for i in 0..<100 { _ = try store.cache(named: "plain\(i)", create: false) }
        advance(clock, 1000)
        XCTAssertFalse(try store.purgeExpiredInBackground(budget: .max))
        XCTAssertEqual(store.caches.purgeLooks, 1)
        XCTAssertEqual(expiring.count, 0)
    }

    func testChangingTheLifespanChangesWhenStoredEntriesExpire() throws {
        let clock = Clock(fixedAt: start)
        let store = try makeStore(clock: clock)
        let cache = try openCache(store)
        try cache.put("k", "v")
        try cache.put("own", "v", ttl: 0)
        advance(clock, 5000)
        XCTAssertEqual(try cache.purgeExpired(limit: 64), 0)
        _ = try store.open("c", change: { var c = CacheConfigChange(); c.lifespan = 1000; return c }())
        XCTAssertEqual(try cache.purgeExpired(limit: 64), 1, "expired 4 s ago by the new lifespan; the entry with its own ttl stays")
        XCTAssertEqual(try cache.allKeys(), ["own"])
    }

    /// A store from before schema 4 gets each entry's expiry when it is opened:
    /// its own ttl, else its cache's lifespan; none for 0.
    func testAnOlderStoreLearnsWhenItsEntriesExpire() throws {
        try requireSQLite("upgrades a store SQLite wrote in an older layout")
        let clock = Clock(fixedAt: start)
        let store = try makeStore(clock: clock)
        let cache = try openCache(store) { $0.lifespan = 1000 }
        try cache.put("life", "1")
        try cache.put("own", "2", ttl: 5000)
        try cache.put("zero", "3", ttl: 0)
        try store.commit()
        // As schema 3 left it.
        try store.database.execute("""
            DROP INDEX entries_by_expiry; ALTER TABLE entries DROP COLUMN expires_at; ALTER TABLE entries DROP COLUMN sealed_key;
            ALTER TABLE caches DROP COLUMN app_version; DROP TABLE store_meta;
            ALTER TABLE caches DROP COLUMN key_check; ALTER TABLE caches DROP COLUMN rekey_check; ALTER TABLE caches DROP COLUMN rekey_cursor;
            ALTER TABLE caches DROP COLUMN generation; ALTER TABLE caches DROP COLUMN rekey_generation;
            ALTER TABLE entries DROP COLUMN revision; DROP TABLE entry_revisions; DROP TABLE locks; DROP TABLE fetch_leases;
            PRAGMA user_version = 3
            """)
        store.close()
        let reopened = try makeStore(clock: clock)
        let c = try XCTUnwrap(reopened.cache(named: "c", create: false))
        advance(clock, 2000)
        XCTAssertEqual(try c.purgeExpired(limit: 64), 1, "the lifespan's entry")
        advance(clock, 4000)
        XCTAssertEqual(try c.purgeExpired(limit: 64), 1, "the entry with its own ttl")
        XCTAssertEqual(try c.allKeys(), ["zero"])
    }
}
