import XCTest
@testable import LarderCore

final class CacheExpiryTests: StoreTestCase {
    private let start: Int64 = 1_000_000

    private func advance(_ clock: Clock, _ ms: Int64) { XCTAssertTrue(clock.advance(milliseconds: ms)) }

    /// Runs `body` for a persistent and a memory-only cache.
    private func forBothKinds(_ configure: @escaping (inout CacheConfigChange) -> Void = { _ in },
                              _ body: (Cache, Clock, String) throws -> Void) throws {
        for persistent in [true, false] {
            let clock = Clock(fixedAt: start)
            let store = try makeStore(clock: clock, inMemory: true)
            let cache = try openCache(store, persistent ? "p" : "m") { configure(&$0); $0.persistent = persistent }
            try body(cache, clock, persistent ? "persistent" : "memory-only")
        }
    }

    func testLifespanExpiresEntriesAsMisses() throws {
        try forBothKinds({ $0.lifespan = 1000 }) { cache, clock, kind in
            try cache.put("k", "v")
            XCTAssertEqual(try cache.lookup("k")?.expiresAt, start + 1000, kind)
            advance(clock, 999)
            let found = try XCTUnwrap(cache.lookup("k"), kind)
            XCTAssertFalse(found.expired, kind)
            XCTAssertEqual(try cache.has(EntryKey(group: "g", key: "k")).valid, true, kind)
            advance(clock, 1)
            XCTAssertNil(try cache.lookup("k"), kind)
            let has = try cache.has(EntryKey(group: "g", key: "k"))
            XCTAssertTrue(has.found, kind)
            XCTAssertFalse(has.valid, kind)
        }
    }

    func testExpiredEntryIsAMissFromDiskToo() throws {
        let clock = Clock(fixedAt: start)
        let cache = try openCache(makeStore(clock: clock)) { $0.lifespan = 1000 }
        try cache.put("k", "v")
        _ = try cache.clear(group: nil, tier: .memory)
        advance(clock, 1000)
        XCTAssertNil(try cache.lookup("k"))
        XCTAssertEqual(try cache.has(EntryKey(group: "g", key: "k")).found, true)
    }

    func testReturnsExpiredMarksThem() throws {
        try forBothKinds({ $0.lifespan = 1000; $0.returnsExpired = true }) { cache, clock, kind in
            try cache.put("k", "v")
            advance(clock, 5000)
            let found = try XCTUnwrap(cache.lookup("k"), kind)
            XCTAssertTrue(found.expired, kind)
            XCTAssertEqual(found.expiresAt, start + 1000, kind)
            XCTAssertEqual(found.entry.bytes, bytes("v"), kind)
        }
    }

    func testTTLOverridesLifespan() throws {
        try forBothKinds({ $0.lifespan = 1000 }) { cache, clock, kind in
            try cache.put("long", "v", ttl: 5000)
            try cache.put("short", "v", ttl: 100)
            try cache.put("forever", "v", ttl: 0)
            try cache.put("default", "v")
            XCTAssertEqual(try cache.lookup("long")?.expiresAt, start + 5000, kind)
            XCTAssertEqual(try cache.lookup("short")?.expiresAt, start + 100, kind)
            XCTAssertNil(try cache.lookup("forever")?.expiresAt, kind)
            advance(clock, 100)
            XCTAssertNil(try cache.lookup("short"), kind)
            XCTAssertNotNil(try cache.lookup("default"), kind)
            advance(clock, 900)
            XCTAssertNil(try cache.lookup("default"), kind)
            XCTAssertNotNil(try cache.lookup("long"), kind)
            advance(clock, 4000)
            XCTAssertNil(try cache.lookup("long"), kind)
            advance(clock, 1_000_000_000_000)
            let forever = try XCTUnwrap(cache.lookup("forever"), kind)
            XCTAssertFalse(forever.expired, kind)
        }
    }

    func testNoLifespanNeverExpires() throws {
        try forBothKinds { cache, clock, kind in
            try cache.put("k", "v")
            advance(clock, 100 * 365 * 86_400_000)
            XCTAssertEqual(try cache.text("k"), "v", kind)
            XCTAssertEqual(try cache.purgeExpired(group: nil), 0, kind)
        }
    }

    func testTTLSurvivesAReopen() throws {
        let clock = Clock(fixedAt: start)
        let store = try makeStore(clock: clock)
        let cache = try openCache(store) { $0.lifespan = 1000 }
        try cache.put("k", "v", ttl: 0)
        try cache.put("t", "v", ttl: 3000)
        store.close()
        let reopened = try makeStore(clock: clock)
        let again = try XCTUnwrap(reopened.cache(named: "c", create: false))
        advance(clock, 2000)
        XCTAssertNotNil(try again.lookup("k"))
        XCTAssertEqual(try again.lookup("t")?.expiresAt, start + 3000)
        advance(clock, 1000)
        XCTAssertNil(try again.lookup("t"))
    }

    func testTouchRestartsTheLifetime() throws {
        try forBothKinds({ $0.lifespan = 1000 }) { cache, clock, kind in
            try cache.put("k", "v")
            advance(clock, 800)
            XCTAssertEqual(try cache.touch(EntryKey(group: "g", key: "k")), .touched, kind)
            XCTAssertEqual(try cache.lookup("k")?.expiresAt, start + 1800, kind)
            advance(clock, 800)
            XCTAssertNotNil(try cache.lookup("k"), kind)
            advance(clock, 200)
            XCTAssertNil(try cache.lookup("k"), kind)
            XCTAssertEqual(try cache.touch(EntryKey(group: "g", key: "missing")), .absent, kind)
        }
    }

    func testTouchAlsoRevivesTheDiskCopy() throws {
        let clock = Clock(fixedAt: start)
        let store = try makeStore(clock: clock)
        let cache = try openCache(store) { $0.lifespan = 1000 }
        try cache.put("k", "v")
        advance(clock, 800)
        XCTAssertEqual(try cache.touch(EntryKey(group: "g", key: "k")), .touched)
        _ = try cache.clear(group: nil, tier: .memory)
        advance(clock, 800)
        let found = try XCTUnwrap(cache.lookup("k"))
        XCTAssertEqual(found.tier, .disk)
        XCTAssertEqual(found.expiresAt, start + 1800)
        XCTAssertEqual(found.entry.storedAt, start)
        store.close()
        let reopened = try makeStore(clock: clock)
        XCTAssertEqual(try reopened.cache(named: "c", create: false)?.lookup("k")?.expiresAt, start + 1800)
    }

    func testTouchOfAnEntryOnlyOnDisk() throws {
        let clock = Clock(fixedAt: start)
        let cache = try openCache(makeStore(clock: clock)) { $0.lifespan = 1000 }
        try cache.put("k", "v")
        _ = try cache.clear(group: nil, tier: .memory)
        advance(clock, 900)
        XCTAssertEqual(try cache.touch(EntryKey(group: "g", key: "k")), .touched)
        advance(clock, 900)
        XCTAssertNotNil(try cache.lookup("k"))
    }

    func testTouchMakesAnExpiredEntryValidWhenTheCacheReturnsExpired() throws {
        try forBothKinds({ $0.lifespan = 1000; $0.returnsExpired = true }) { cache, clock, kind in
            try cache.put("k", "v")
            advance(clock, 1500)
            XCTAssertEqual(try cache.lookup("k")?.expired, true, kind)
            XCTAssertEqual(try cache.touch(EntryKey(group: "g", key: "k")), .revived, kind)
            let found = try XCTUnwrap(cache.lookup("k"), kind)
            XCTAssertFalse(found.expired, kind)
            XCTAssertEqual(found.expiresAt, start + 2500, kind)
        }
    }

    /// Cashier's refreshValidation: an entry that expired but is still stored
    /// comes back, and the answer says it was revived.
    func testTouchRevivesAnExpiredEntryStillStored() throws {
        try forBothKinds({ $0.lifespan = 1000 }) { cache, clock, kind in
            try cache.put("k", "v")
            advance(clock, 1500)
            XCTAssertNil(try cache.lookup("k"), kind)
            XCTAssertEqual(try cache.touch(EntryKey(group: "g", key: "k")), .revived, kind)
            let found = try XCTUnwrap(cache.lookup("k"), kind)
            XCTAssertEqual(found.expiresAt, start + 2500, kind)
            XCTAssertEqual(try cache.purgeExpired(group: nil), 0, kind)
            advance(clock, 1000)
            XCTAssertEqual(try cache.purgeExpired(group: nil), 1, kind)
            XCTAssertEqual(try cache.touch(EntryKey(group: "g", key: "k")), .absent, "once purged it is gone: \(kind)")
        }
    }

    func testPurgeExpiredDeletesOnlyExpiredOnes() throws {
        let clock = Clock(fixedAt: start)
        let store = try makeStore(clock: clock)
        let log = EventLog()
        log.attach(to: store)
        let cache = try openCache(store) { $0.lifespan = 1000 }
        try cache.put("short", "12", ttl: 100)
        try cache.put("forever", "123", ttl: 0)
        try cache.put("default", "1234")
        try cache.put("other-group", "12345", group: "h", ttl: 100)
        advance(clock, 500)
        XCTAssertEqual(try cache.purgeExpired(group: "g"), 1)
        XCTAssertEqual(log.events, [.evicted(cache: "c", group: "g", key: "short", tier: .disk, reason: .expired)])
        XCTAssertEqual(cache.count, 3)
        XCTAssertEqual(cache.bytes, 12)
        XCTAssertFalse(try cache.contains("short"))
        XCTAssertTrue(try cache.contains("other-group", group: "h"))

        XCTAssertEqual(try cache.purgeExpired(group: nil), 1)
        XCTAssertEqual(log.evictions.last?.key, "other-group")
        XCTAssertEqual(log.evictions.last?.group, "h")
        advance(clock, 500)
        XCTAssertEqual(try cache.purgeExpired(group: nil), 1)
        XCTAssertEqual(log.evictedKeys(tier: .disk, reason: .expired), ["short", "other-group", "default"])
        XCTAssertEqual(try cache.purgeExpired(group: nil), 0)
        XCTAssertEqual(cache.count, 1)
        XCTAssertEqual(cache.bytes, 3)
        XCTAssertEqual(cache.memoryCount, 1)
        XCTAssertEqual(cache.stats.disk.evictions, 3)
        XCTAssertEqual(try cache.text("forever"), "123")

        store.close()
        let reopened = try makeStore(clock: clock)
        let again = try XCTUnwrap(reopened.cache(named: "c", create: false))
        XCTAssertEqual(again.count, 1)
        XCTAssertEqual(try again.allKeys(), ["forever"])
    }

    func testPurgeExpiredInAMemoryOnlyCache() throws {
        let clock = Clock(fixedAt: start)
        let store = try makeStore(clock: clock)
        let log = EventLog()
        log.attach(to: store)
        let cache = try openCache(store) { $0.persistent = false; $0.lifespan = 1000 }
        try cache.put("a", "1")
        try cache.put("b", "1", ttl: 0)
        try cache.put("c", "1", group: "h")
        advance(clock, 1000)
        XCTAssertEqual(try cache.purgeExpired(group: "g"), 1)
        XCTAssertEqual(log.events, [.evicted(cache: "c", group: "g", key: "a", tier: .memory, reason: .expired)])
        XCTAssertEqual(try cache.purgeExpired(group: nil), 1)
        XCTAssertEqual(log.evictions.last?.key, "c")
        XCTAssertEqual(cache.count, 1)
        XCTAssertEqual(cache.stats.memory.evictions, 2)
    }

    func testKeysLeaveExpiredOut() throws {
        try forBothKinds({ $0.lifespan = 1000 }) { cache, clock, kind in
            try cache.put("a", "v")
            try cache.put("b", "v", ttl: 0)
            try cache.put("c", "v", ttl: 2000)
            advance(clock, 1000)
            XCTAssertEqual(try cache.allKeys(), ["b", "c"], kind)
            advance(clock, 1000)
            XCTAssertEqual(try cache.allKeys(), ["b"], kind)
        }
    }

    func testKeysIncludeExpiredWhenTheCacheReturnsThem() throws {
        try forBothKinds({ $0.lifespan = 1000; $0.returnsExpired = true }) { cache, clock, kind in
            try cache.put("a", "v")
            try cache.put("b", "v", ttl: 0)
            advance(clock, 5000)
            XCTAssertEqual(try cache.allKeys(), ["a", "b"], kind)
        }
    }
}
