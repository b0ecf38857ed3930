import XCTest
import LarderJSON
@testable import LarderCore

/// `open` with the other value of `persistent`: the entries move with the cache.
final class CachePersistenceFlipTests: StoreTestCase {
    private func rows(_ store: Store) throws -> Int64 {
        try store.database.integer("SELECT COUNT(*) FROM entries")
    }

    private func flip(_ store: Store, toPersistent: Bool, _ configure: (inout CacheConfigChange) -> Void = { _ in }) throws -> Cache {
        try openCache(store) {
            $0.persistent = toPersistent
            configure(&$0)
        }
    }

    // MARK: - Memory-only → persistent

    func testMemoryOnlyEntriesAreWrittenToDiskAndSurviveARestart() throws {
        let clock = Clock(fixedAt: 1_000_000)
        let store = try makeStore(clock: clock)
        let cache = try openCache(store) { $0.persistent = false }
        try cache.put("a", "1")
        _ = clock.advance(milliseconds: 10)
        try cache.put("b", "22", ttl: 60_000)
        try cache.put("c", "333", group: "other")
        try store.commit()
        XCTAssertEqual(try rows(store), 0)

        let again = try flip(store, toPersistent: true)
        XCTAssertTrue(again === cache)
        XCTAssertTrue(cache.config.persistent)
        XCTAssertEqual(cache.diskTotals.count, 3)
        XCTAssertEqual(cache.diskTotals.bytes, 6)
        XCTAssertEqual(try cache.lookup("a")?.tier, .memory, "copies stay in memory")
        try store.commit()
        XCTAssertEqual(try rows(store), 3)
        store.close()

        let reopened = try makeStore(clock: clock)
        let loaded = try XCTUnwrap(reopened.cache(named: "c", create: false))
        XCTAssertTrue(loaded.config.persistent)
        XCTAssertEqual(try loaded.text("a"), "1")
        XCTAssertEqual(try loaded.text("c", group: "other"), "333")
        let b = try XCTUnwrap(loaded.lookup("b"))
        XCTAssertEqual(b.tier, .disk)
        XCTAssertEqual(b.entry.storedAt, 1_000_010, "when it was stored stays")
        XCTAssertEqual(b.expiresAt, 1_060_010, "its own ttl stays")
        _ = clock.advance(milliseconds: 60_000)
        XCTAssertNil(try loaded.lookup("b"), "and it expires on disk as it would have in memory")
    }

    func testDiskLimitsEvictTheLeastRecentlyUsedWithEvents() throws {
        let store = try makeStore()
        let log = EventLog()
        log.attach(to: store)
        let cache = try openCache(store) { $0.persistent = false }
        for k in ["a", "b", "c", "d"] { try cache.put(k, "v") }
        _ = try cache.text("a")
        _ = try flip(store, toPersistent: true) { $0.diskMaxCount = 2 }
        XCTAssertEqual(log.evictedKeys(tier: .disk), ["b", "c"])
        XCTAssertEqual(try cache.allKeys(), ["a", "d"])
        XCTAssertEqual(cache.diskTotals.count, 2)
        XCTAssertEqual(cache.memoryCount, 2, "what left the disk left memory too")
        XCTAssertEqual(cache.stats.disk.evictions, 2)
        // The disk tier's order of use is the memory tier's: d, then a.
        try cache.put("e", "v")
        XCTAssertEqual(log.evictedKeys(tier: .disk), ["b", "c", "d"])
    }

    func testAnEntryLargerThanDiskMaxBytesLeavesFirstHoweverRecent() throws {
        let store = try makeStore()
        let log = EventLog()
        log.attach(to: store)
        let cache = try openCache(store) { $0.persistent = false }
        try cache.put("small1", "12")
        try cache.put("small2", "12")
        try cache.put("big", "0123456789")
        _ = try flip(store, toPersistent: true) { $0.diskMaxBytes = 5 }
        XCTAssertEqual(log.evictedKeys(tier: .disk), ["big"])
        XCTAssertEqual(try cache.allKeys(), ["small1", "small2"])
        XCTAssertEqual(try rows(store), 2)
    }

    func testOnlyEntriesAPersistentCacheKeepsInMemoryStayThere() throws {
        let store = try makeStore()
        let cache = try openCache(store) { $0.persistent = false; $0.memoryMaxBytes = 80 }
        try cache.put("large", String(repeating: "x", count: 20))
        try cache.put("small", "x")
        _ = try flip(store, toPersistent: true)
        XCTAssertEqual(cache.memoryCount, 1, "a persistent cache keeps in memory entries of at most an eighth of memory.maxBytes")
        XCTAssertEqual(try cache.lookup("small")?.tier, .memory)
        XCTAssertEqual(try cache.lookup("large")?.tier, .disk)
    }

    // MARK: - Persistent → memory-only

    func testPersistentKeepsTheMostRecentlyUsedThatFitAndDeletesItsRows() throws {
        let store = try makeStore()
        let cache = try openCache(store)
        for k in ["a", "b", "c", "d", "e"] { try cache.put(k, "v") }
        try store.commit()
        store.close()

        // A new process: the memory tier starts empty, so recency comes from disk and from reads since.
        let reopened = try makeStore()
        let other = try openCache(reopened, "other")
        try other.put("k", "kept")
        let log = EventLog()
        log.attach(to: reopened)
        let loaded = try XCTUnwrap(reopened.cache(named: "c", create: false))
        _ = try loaded.text("b")
        let flipped = try flip(reopened, toPersistent: false) { $0.memoryMaxCount = 3 }
        XCTAssertTrue(flipped === loaded)
        XCTAssertFalse(loaded.config.persistent)
        // b (read), then e and d (written last).
        XCTAssertEqual(Set(try loaded.allKeys()), ["b", "d", "e"])
        XCTAssertEqual(try loaded.lookup("e")?.tier, .memory)
        XCTAssertEqual(loaded.count, 3)
        XCTAssertEqual(loaded.diskTotals.count, 0)
        XCTAssertEqual(log.events, [.cleared(cache: "c", group: nil, tier: .disk)])
        try reopened.commit()
        XCTAssertEqual(try reopened.database.integer("SELECT COUNT(*) FROM entries WHERE cache = \(loaded.id)"), 0)
        XCTAssertEqual(try rows(reopened), 1, "other caches keep theirs")
        // The memory tier's order: e was read last, so d goes first.
        _ = try loaded.text("e")
        _ = try loaded.text("b")
        try loaded.put("f", "v")
        XCTAssertEqual(log.evictedKeys(tier: .memory), ["d"])
        reopened.close()

        let third = try makeStore()
        let last = try XCTUnwrap(third.cache(named: "c", create: false))
        XCTAssertFalse(last.config.persistent)
        XCTAssertEqual(try last.allKeys(), [], "memory-only from now on")
    }

    func testMemoryLimitsInBytesKeepTheNewestThatFit() throws {
        let store = try makeStore()
        let cache = try openCache(store)
        try cache.put("old", "1234")
        try cache.put("huge", String(repeating: "x", count: 50))
        try cache.put("mid", "1234")
        try cache.put("new", "1234")
        try store.commit()
        _ = try flip(store, toPersistent: false) { $0.memoryMaxBytes = 10 }
        // new and mid fit; huge never could; old would be over the limit.
        XCTAssertEqual(try cache.allKeys(), ["mid", "new"])
        XCTAssertEqual(cache.bytes, 8)
    }

    func testExpiringEntriesStillExpireInMemory() throws {
        let clock = Clock(fixedAt: 0)
        let store = try makeStore(clock: clock)
        let log = EventLog()
        log.attach(to: store)
        let cache = try openCache(store) { $0.lifespan = 1000; $0.purgeExpiredAfter = 0 }
        try cache.put("short", "v")
        try cache.put("forever", "v", ttl: 0)
        _ = try flip(store, toPersistent: false)
        _ = clock.advance(milliseconds: 1000)
        XCTAssertNil(try cache.lookup("short"))
        XCTAssertEqual(try cache.purgeExpired(limit: 10), 1)
        XCTAssertEqual(log.evictedKeys(tier: .memory, reason: .expired), ["short"])
        XCTAssertEqual(try cache.allKeys(), ["forever"])
    }

    // MARK: - Both ways

    func testObjectsFollowTheCache() throws {
        let store = try makeStore()
        try store.register("Note", "1.0", #"{"fields": {"text": "string"}}"#)
        let cache = try openCache(store) { $0.persistent = false }
        try cache.putObject("n", "Note", #"{"text": "hello"}"#)
        _ = try flip(store, toPersistent: true)
        try store.commit()
        store.close()

        let reopened = try makeStore()
        let loaded = try XCTUnwrap(reopened.cache(named: "c", create: false))
        XCTAssertEqual(try loaded.readObject("n").currentObject?.plainValue, json(#"{"text": "hello"}"#))
        _ = try flip(reopened, toPersistent: false)
        try reopened.commit()
        XCTAssertEqual(try rows(reopened), 0)
        XCTAssertEqual(try loaded.readObject("n").currentObject?.plainValue, json(#"{"text": "hello"}"#))
        XCTAssertEqual(try loaded.lookup("n")?.tier, .memory)
    }

    func testADurableStoreStaysPersistent() throws {
        let store = try makeStore()
        let outbox = try openCache(store, "outbox") { $0.kind = .store }
        try outbox.put("k", "v")
        assertInvalid("persistent", "a durable store (kind \"store\") is always persistent") {
            _ = try self.openCache(store, "outbox") { $0.persistent = false; $0.memoryMaxCount = 1 }
        }
        XCTAssertTrue(outbox.config.persistent)
        XCTAssertEqual(outbox.config.memory.maxCount, 10_000, "a refused change changes nothing")
        XCTAssertEqual(try rows(store), 1)
    }

    func testAFailedCommitLeavesTheCacheAsTheStoreHasIt() throws {
        let store = try makeStore()
        let cache = try openCache(store)
        try cache.put("k", "v")
        try store.commit()
        _ = try flip(store, toPersistent: false)
        try refuseCommits(store, true)
        XCTAssertThrowsError(try store.commit())
        try refuseCommits(store, false)
        let again = try XCTUnwrap(store.cache(named: "c", create: false))
        XCTAssertTrue(again.config.persistent, "rolled back")
        XCTAssertEqual(try again.text("k"), "v")
        XCTAssertEqual(again.count, 1)
    }

    func testAnotherProcessFollowsTheChange() throws {
        let first = try makeStore()
        let second = try makeStore()
        let mine = try openCache(first) { $0.persistent = false }
        try first.commit()
        try mine.put("a", "from first")
        try second.noticeForeignWrites()
        let theirs = try XCTUnwrap(second.cache(named: "c", create: false))
        try theirs.put("b", "from second")

        _ = try flip(first, toPersistent: true)
        try first.commit()
        try second.noticeForeignWrites()
        let seen = try XCTUnwrap(second.cache(named: "c", create: false))
        XCTAssertTrue(seen.config.persistent)
        XCTAssertEqual(try seen.text("a"), "from first")
        XCTAssertNil(try seen.text("b"), "its own memory-only entries were not on disk")
        XCTAssertEqual(seen.count, 1)

        _ = try flip(first, toPersistent: false)
        try first.commit()
        try second.noticeForeignWrites()
        let back = try XCTUnwrap(second.cache(named: "c", create: false))
        XCTAssertFalse(back.config.persistent)
        XCTAssertNil(try back.text("a"), "it starts empty: the rows are gone")
        XCTAssertEqual(back.count, 0)
        XCTAssertEqual(try mine.text("a"), "from first", "the process that flipped kept what fit")
    }
}
