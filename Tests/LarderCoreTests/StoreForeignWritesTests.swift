import XCTest
@testable import LarderCore

/// Two `Store`s on one directory: what two processes sharing a store see.
final class StoreForeignWritesTests: StoreTestCase {
    private func cache(_ store: Store, _ name: String = "c") throws -> Cache {
        try XCTUnwrap(store.cache(named: name, create: false))
    }

    func testCommittedWriteIsSeenAfterNotice() throws {
        let a = try makeStore()
        let b = try makeStore()
        try openCache(a).put("k", "v1")
        try a.commit()

        try b.noticeForeignWrites()
        XCTAssertEqual(try cache(b).lookup("k")?.tier, .disk)
        XCTAssertEqual(try cache(b).lookup("k")?.tier, .memory)

        try cache(a).put("k", "v2")
        try a.commit()
        try b.noticeForeignWrites()
        let found = try XCTUnwrap(cache(b).lookup("k"))
        XCTAssertEqual(String(decoding: found.entry.bytes, as: UTF8.self), "v2")
        XCTAssertEqual(found.tier, .disk)
    }

    func testHeldCacheReferenceDoesNotServeStaleMemory() throws {
        let a = try makeStore()
        let b = try makeStore()
        try openCache(a).put("k", "v1")
        try a.commit()
        try b.noticeForeignWrites()
        let held = try cache(b)
        XCTAssertEqual(try held.text("k"), "v1")
        XCTAssertEqual(held.memoryCount, 1)

        try cache(a).put("k", "v2")
        try a.commit()
        try b.noticeForeignWrites()
        XCTAssertEqual(try held.text("k"), "v2")
    }

    func testForeignRemoveAndClearAreSeen() throws {
        let a = try makeStore()
        let b = try makeStore()
        let ca = try openCache(a)
        try ca.put("x", "1")
        try ca.put("y", "2")
        try ca.put("z", "3", group: "h")
        try a.commit()
        try b.noticeForeignWrites()
        XCTAssertEqual(try cache(b).text("x"), "1")
        XCTAssertEqual(try cache(b).text("y"), "2")
        XCTAssertEqual(try cache(b).text("z", group: "h"), "3")

        XCTAssertTrue(try ca.remove(EntryKey(group: "g", key: "x")))
        _ = try ca.clear(group: "h", tier: .all)
        try a.commit()
        try b.noticeForeignWrites()
        XCTAssertNil(try cache(b).text("x"))
        XCTAssertNil(try cache(b).text("z", group: "h"))
        XCTAssertEqual(try cache(b).text("y"), "2")
        XCTAssertEqual(try cache(b).count, 1)
        XCTAssertEqual(try cache(b).allKeys(), ["y"])
    }

    func testForeignTotalsAndLimitsAreRespected() throws {
        let a = try makeStore()
        let b = try makeStore()
        let ca = try openCache(a) { $0.diskMaxCount = 3 }
        try ca.put("a1", "v")
        try a.commit()
        try b.noticeForeignWrites()
        XCTAssertEqual(try cache(b).count, 1)

        try ca.put("a2", "v")
        try ca.put("a3", "v")
        try a.commit()
        try b.noticeForeignWrites()
        let cb = try cache(b)
        XCTAssertEqual(cb.count, 3)
        XCTAssertEqual(cb.diskTotals.bytes, 3)
        let log = EventLog()
        log.attach(to: b)
        try cb.put("b1", "v")
        XCTAssertEqual(log.evictedKeys(tier: .disk), ["a1"])
        XCTAssertEqual(cb.count, 3)
        try b.commit()

        try a.noticeForeignWrites()
        XCTAssertEqual(try cache(a).allKeys(), ["a2", "a3", "b1"])
        XCTAssertEqual(try cache(a).count, 3)
    }

    func testForeignCacheCreationAndSettingsAreSeen() throws {
        let a = try makeStore()
        let b = try makeStore()
        _ = try openCache(a) { $0.lifespan = 1000 }
        try a.commit()
        try b.noticeForeignWrites()
        XCTAssertEqual(try cache(b).config.lifespan, 1000)

        _ = try openCache(a) { $0.lifespan = 5000 }
        _ = try openCache(a, "second")
        try a.commit()
        try b.noticeForeignWrites()
        XCTAssertEqual(try cache(b).config.lifespan, 5000)
        XCTAssertEqual(try b.allCaches().map(\.name), ["c", "second"])
    }

    func testForeignDropIsSeen() throws {
        let a = try makeStore()
        let b = try makeStore()
        try openCache(a).put("k", "v")
        try a.commit()
        try b.noticeForeignWrites()
        XCTAssertEqual(try cache(b).text("k"), "v")
        try a.drop("c")
        try a.commit()
        try b.noticeForeignWrites()
        XCTAssertNil(try b.cache(named: "c", create: false))
    }

    func testNoForeignWritesKeepsTheMemoryTier() throws {
        let a = try makeStore()
        let b = try makeStore()
        try openCache(a).put("k", "v")
        try a.commit()
        try b.noticeForeignWrites()
        XCTAssertEqual(try cache(b).lookup("k")?.tier, .disk)
        try b.noticeForeignWrites()
        try b.noticeForeignWrites()
        XCTAssertEqual(try cache(b).lookup("k")?.tier, .memory)
    }

    func testOwnCommitsKeepTheMemoryTier() throws {
        let a = try makeStore()
        _ = try makeStore()
        let ca = try openCache(a)
        try ca.put("k", "v")
        try a.commit()
        try a.noticeForeignWrites()
        XCTAssertEqual(try cache(a).lookup("k")?.tier, .memory)
    }

    func testMemoryOnlyCachesAreNotAffected() throws {
        let a = try makeStore()
        let b = try makeStore()
        let volatileB = try openCache(b, "volatile") { $0.persistent = false }
        try volatileB.put("k", "mine")
        try b.commit()
        try openCache(a).put("k", "theirs")
        try a.commit()
        try b.noticeForeignWrites()
        XCTAssertEqual(try cache(b, "volatile").text("k"), "mine")
        XCTAssertEqual(try cache(b).text("k"), "theirs")
    }
}

extension StoreForeignWritesTests {
    /// data_version is asked only when the WAL-index header moved: by a
    /// commit of this process or another's, never missing the other's.
    func testDataVersionIsAskedOnlyWhenTheWALIndexMoved() throws {
        try requireSQLite("counts the asks of SQLite's data_version")
        let a = try makeStore()
        let b = try makeStore()
        try openCache(a).put("k", "v1")
        try a.commit()
        try b.noticeForeignWrites()
        XCTAssertEqual(try cache(b).text("k"), "v1")
        let asked = b.dataVersionQueries
        for _ in 0..<100 { try b.noticeForeignWrites() }
        XCTAssertEqual(b.dataVersionQueries, asked, "nothing committed: nothing asked")

        try cache(a).put("k", "v2")
        try a.commit()
        try b.noticeForeignWrites()
        XCTAssertEqual(b.dataVersionQueries, asked + 1)
        XCTAssertEqual(try cache(b).text("k"), "v2", "the other process's commit was seen")

        // Its own commit moves the header too: asked once more, memory kept.
        try cache(b).put("own", "1")
        try b.commit()
        try b.noticeForeignWrites()
        XCTAssertEqual(b.dataVersionQueries, asked + 2)
        XCTAssertEqual(try cache(b).lookup("own")?.tier, .memory)
        for _ in 0..<10 { try b.noticeForeignWrites() }
        XCTAssertEqual(b.dataVersionQueries, asked + 2)
    }
}
