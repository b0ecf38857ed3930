import XCTest
@testable import LarderCore

/// Gets for keys given as bytes (how requests are answered) agree with gets by key.
final class CacheBytesLookupTests: StoreTestCase {
    private func get(_ cache: Cache, _ key: String, group: String = "g") throws -> Cache.Lookup? {
        var group = group, key = key
        var seen: [Cache.Lookup] = []
        let found = try group.withUTF8 { g in try key.withUTF8 { k in try cache.get(group: g, key: k, { seen.append($0) }, inPlace: { _, _ in XCTFail("small values are read whole") }) } }
        XCTAssertEqual(found, !seen.isEmpty, "the answer says whether the entry was handed over")
        XCTAssertLessThanOrEqual(seen.count, 1)
        return seen.first
    }

    func testHitsMissesAndDiskReadsCountAsByKey() throws {
        let store = try makeStore()
        let cache = try openCache(store)
        try cache.put("k", "1", kind: .json)
        XCTAssertEqual(try get(cache, "k")?.tier, .memory)
        XCTAssertNil(try get(cache, "k", group: "other"))
        XCTAssertNil(try get(cache, "missing"))
        _ = try cache.clear(group: nil, tier: .memory)
        let fromDisk = try XCTUnwrap(get(cache, "k"))
        XCTAssertEqual(fromDisk.tier, .disk)
        XCTAssertEqual(fromDisk.entry.bytes, Array("1".utf8))
        XCTAssertEqual(try get(cache, "k")?.tier, .memory, "kept in memory after the disk read")
        XCTAssertEqual(cache.stats.memory.hits, 2)
        XCTAssertEqual(cache.stats.memory.misses, 3)
        XCTAssertEqual(cache.stats.disk.hits, 1)
        XCTAssertEqual(cache.stats.disk.misses, 2)
    }

    func testExpiredEntriesReadAsMisses() throws {
        let clock = Clock(fixedAt: 1_000_000)
        let store = try makeStore(clock: clock)
        let cache = try openCache(store)
        try cache.put("k", "1", ttl: 1_000, kind: .json)
        _ = clock.advance(milliseconds: 1_000)
        XCTAssertNil(try get(cache, "k"))
        XCTAssertNil(try cache.lookup("k"))
    }

    func testTheLastCacheUsedIsFoundByItsNameBytes() throws {
        let store = try makeStore()
        let a = try openCache(store, "a")
        let b = try openCache(store, "bé")
        func named(_ name: String) throws -> Cache? {
            var name = name
            return try name.withUTF8 { try store.cache(namedUTF8: $0, create: false) }
        }
        XCTAssertTrue(try named("a") === a)
        XCTAssertTrue(try named("bé") === b)
        XCTAssertTrue(try named("bé") === b)
        XCTAssertNil(try named("be\u{301}"))
        XCTAssertNil(try named("c"))
        try store.drop("bé")
        XCTAssertNil(try named("bé"), "a dropped cache is not found again")
    }
}
