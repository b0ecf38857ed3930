import XCTest
@testable import LarderCore

/// Replacing an entry, whether the memory tier knows its row or not: one row
/// per key, and totals that match what the disk holds.
final class CacheOverwriteTests: StoreTestCase {
    private func diskRows(_ store: Store) throws -> (count: Int, bytes: Int) {
        let s = try store.database.statement("SELECT COUNT(*), CAST(COALESCE(SUM(size), 0) AS BIGINT) FROM entries")
        defer { s.reset() }
        _ = try s.step()
        return (try s.int(0), try s.int(1))
    }

    func testOverwriteOfAnEntryInMemory() throws {
        let store = try makeStore()
        let cache = try openCache(store)
        try cache.put("a", "1")
        try cache.put("a", "22")
        XCTAssertEqual(try cache.text("a"), "22")
        XCTAssertEqual(cache.diskTotals.count, 1)
        XCTAssertEqual(cache.diskTotals.bytes, 2)
        XCTAssertEqual(try diskRows(store).count, 1)
        XCTAssertEqual(try diskRows(store).bytes, 2)
    }

    func testOverwriteOfAnEntryOnlyOnDisk() throws {
        let store = try makeStore()
        let cache = try openCache(store) { $0.memoryMaxCount = 1 }
        try cache.put("a", "1")
        try cache.put("b", "2")
        XCTAssertEqual(cache.memoryCount, 1, "a left memory")
        try cache.put("a", "333")
        XCTAssertEqual(cache.diskTotals.count, 2)
        XCTAssertEqual(cache.diskTotals.bytes, 4)
        XCTAssertEqual(try diskRows(store).count, 2)
        XCTAssertEqual(try diskRows(store).bytes, 4)
        _ = try cache.clear(group: nil, tier: .memory)
        XCTAssertEqual(try cache.lookup("a")?.tier, .disk)
        XCTAssertEqual(try cache.text("a"), "333")
    }

    func testOverwriteAfterReopening() throws {
        let store = try makeStore()
        try openCache(store).put("a", "1")
        store.close()
        let reopened = try makeStore()
        let cache = try openCache(reopened)
        try cache.put("a", "4444")
        try reopened.commit()
        XCTAssertEqual(cache.diskTotals.count, 1)
        XCTAssertEqual(cache.diskTotals.bytes, 4)
        XCTAssertEqual(try diskRows(reopened).count, 1)
        XCTAssertEqual(try cache.text("a"), "4444")
    }

    func testTheRemovedEntrysRowIsNotReusedForAnother() throws {
        let store = try makeStore()
        let cache = try openCache(store)
        try cache.put("a", "1")
        XCTAssertTrue(try cache.remove(EntryKey(group: "g", key: "a")))
        try cache.put("b", "2")
        try cache.put("a", "3")
        XCTAssertEqual(try cache.text("a"), "3")
        XCTAssertEqual(try cache.text("b"), "2")
        XCTAssertEqual(try diskRows(store).count, 2)
        XCTAssertEqual(cache.diskTotals.count, 2)
    }
}
