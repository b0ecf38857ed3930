import XCTest
import LarderJSON
@testable import LarderCore

/// `objectKeys` (paging in (group, key) order, objects only) and `objectCount`.
final class ObjectKeysTests: StoreTestCase {
    private func fill(_ cache: Cache, _ store: Store) throws {
        try store.register("T", "1", #"{"fields":{"n":"integer"}}"#)
        // Objects in three groups, put out of order, with plain entries mixed in.
        for (group, key) in [("b", "2"), ("a", "z"), ("b", "1"), ("", "root"), ("a", "B"), ("a", "é"), ("b", "10")] {
            try cache.putObject(key, "T", #"{"n":1}"#, group: group)
        }
        try cache.put("plain", "1", group: "a", kind: .json)
        try cache.put("data", "xyz", group: "b")
        try cache.put("zz", "1", group: "", kind: .json)
    }

    private let expected = [("", "root"), ("a", "B"), ("a", "z"), ("a", "é"), ("b", "1"), ("b", "10"), ("b", "2")]

    private func pages(_ cache: Cache, limit: Int) throws -> [[EntryKey]] {
        var result: [[EntryKey]] = []
        var cursor: EntryKey?
        while true {
            let page = try cache.objectKeys(after: cursor, limit: limit)
            if page.isEmpty { break }
            XCTAssertLessThanOrEqual(page.count, limit)
            result.append(page)
            cursor = page.last
            if result.count > 20 { XCTFail("paging does not end"); break }
        }
        return result
    }

    private func check(_ cache: Cache) throws {
        let all = try cache.objectKeys(after: nil, limit: 100)
        XCTAssertEqual(all.map { "\($0.group)/\($0.key)" }, expected.map { "\($0.0)/\($0.1)" })
        let paged = try pages(cache, limit: 2)
        XCTAssertEqual(paged.map(\.count), [2, 2, 2, 1])
        XCTAssertEqual(paged.flatMap { $0 }, all)
        XCTAssertEqual(try pages(cache, limit: 1).flatMap { $0 }, all)
        // Any cursor works, also one that names no entry.
        XCTAssertEqual(try cache.objectKeys(after: EntryKey(group: "a", key: "zz"), limit: 10).map(\.key), ["é", "1", "10", "2"])
        XCTAssertEqual(try cache.objectKeys(after: EntryKey(group: "a", key: "\u{10FFFF}"), limit: 10).map(\.key), ["1", "10", "2"])
        XCTAssertEqual(try cache.objectKeys(after: EntryKey(group: "b", key: "2"), limit: 10), [])
        XCTAssertEqual(try cache.objectKeys(after: EntryKey(group: "", key: ""), limit: 1).map(\.key), ["root"])
        XCTAssertEqual(try cache.objectCount(), 7)
    }

    func testPersistentCache() throws {
        let store = try makeStore()
        let cache = try openCache(store)
        try fill(cache, store)
        try check(cache)
        // After a reopen, from disk.
        store.close()
        let reopened = try makeStore()
        try check(XCTUnwrap(reopened.cache(named: "c", create: false)))
    }

    func testMemoryOnlyCache() throws {
        let store = try makeStore()
        let cache = try openCache(store, "mem") { $0.persistent = false }
        try fill(cache, store)
        try check(cache)
    }

    func testCountFollowsPutsOverwritesAndRemovals() throws {
        let store = try makeStore()
        let cache = try openCache(store)
        try store.register("T", "1", #"{"fields":{"n":"integer"}}"#)
        XCTAssertEqual(try cache.objectCount(), 0)
        XCTAssertEqual(try cache.objectKeys(after: nil, limit: 10), [])
        try cache.putObject("a", "T", #"{"n":1}"#)
        try cache.putObject("a", "T", #"{"n":2}"#)
        try cache.putObject("b", "T", #"{"n":3}"#)
        XCTAssertEqual(try cache.objectCount(), 2)
        // Overwriting an object with plain data makes it no longer an object.
        try cache.put("b", "plain")
        XCTAssertEqual(try cache.objectCount(), 1)
        _ = try cache.remove(EntryKey(group: "g", key: "a"))
        XCTAssertEqual(try cache.objectCount(), 0)
        // Other caches are counted apart.
        let other = try openCache(store, "other")
        try other.putObject("x", "T", #"{"n":1}"#)
        XCTAssertEqual(try cache.objectCount(), 0)
        XCTAssertEqual(try other.objectCount(), 1)
    }
}
