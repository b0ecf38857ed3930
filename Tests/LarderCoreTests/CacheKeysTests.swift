import XCTest
@testable import LarderCore

final class CacheKeysTests: StoreTestCase {
    /// Runs `body` for a persistent and a memory-only cache.
    private func forBothKinds(_ body: (Cache, String) throws -> Void) throws {
        for persistent in [true, false] {
            let store = try makeStore(inMemory: true)
            let cache = try openCache(store) { $0.persistent = persistent }
            try body(cache, persistent ? "persistent" : "memory-only")
        }
    }

    func testByteOrder() throws {
        try forBothKinds { cache, kind in
            let keys = ["b", "a", "B", "é", "z", "aa", "🙂", "ä", "A", "0", "~", "\u{7F}", "ﬀ", " "]
            for k in keys { try cache.put(k, "v") }
            let expected = keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            XCTAssertEqual(expected.prefix(4), [" ", "0", "A", "B"])
            XCTAssertEqual(try cache.allKeys().map { Array($0.utf8) }, expected.map { Array($0.utf8) }, kind)
        }
    }

    func testOnlyTheGroupsKeys() throws {
        try forBothKinds { cache, kind in
            try cache.put("1", "v", group: "x")
            try cache.put("2", "v", group: "x")
            try cache.put("3", "v", group: "y")
            try cache.put("4", "v", group: "")
            XCTAssertEqual(try cache.allKeys(group: "x"), ["1", "2"], kind)
            XCTAssertEqual(try cache.allKeys(group: "y"), ["3"], kind)
            XCTAssertEqual(try cache.allKeys(group: ""), ["4"], kind)
            XCTAssertEqual(try cache.allKeys(group: "z"), [], kind)
        }
    }

    func testPrefix() throws {
        try forBothKinds { cache, kind in
            for k in ["user:1", "user:2", "users", "use", "admin", "user:", "ключ-1", "ключи", "клю", "a_b", "axb", "a%c", "abc"] {
                try cache.put(k, "v")
            }
            XCTAssertEqual(try cache.allKeys(prefix: "user:"), ["user:", "user:1", "user:2"], kind)
            XCTAssertEqual(try cache.allKeys(prefix: "user"), ["user:", "user:1", "user:2", "users"], kind)
            XCTAssertEqual(try cache.allKeys(prefix: "ключ"), ["ключ-1", "ключи"], kind)
            // No LIKE or glob wildcards.
            XCTAssertEqual(try cache.allKeys(prefix: "a_"), ["a_b"], kind)
            XCTAssertEqual(try cache.allKeys(prefix: "a%"), ["a%c"], kind)
            XCTAssertEqual(try cache.allKeys(prefix: "nothing"), [], kind)
            XCTAssertEqual(try cache.allKeys(prefix: "").count, 13, kind)
        }
    }

    func testLimit() throws {
        try forBothKinds { cache, kind in
            for k in ["d", "c", "b", "a"] { try cache.put(k, "v") }
            XCTAssertEqual(try cache.keys(group: "g", prefix: "", after: nil, limit: 2), ["a", "b"], kind)
            XCTAssertEqual(try cache.keys(group: "g", prefix: "", after: nil, limit: 0), [], kind)
            XCTAssertEqual(try cache.keys(group: "g", prefix: "", after: "b", limit: 10), ["c", "d"], kind)
            XCTAssertEqual(try cache.keys(group: "g", prefix: "", after: "bb", limit: 10), ["c", "d"], kind)
            XCTAssertEqual(try cache.keys(group: "g", prefix: "", after: "d", limit: 10), [], kind)
            XCTAssertEqual(try cache.keys(group: "g", prefix: "", after: "", limit: 10), ["a", "b", "c", "d"], kind)
        }
    }

    func testCursorPagingReturnsEveryKeyOnce() throws {
        try forBothKinds { cache, kind in
            var all: [String] = []
            for i in 0..<137 { all.append("k\(i)") }
            all += ["é", "🙂", "Z", "k", "k1\u{0}"]
            let writes = all.map { Cache.Write(key: EntryKey(group: "g", key: $0), kind: .data, bytes: [1], ttl: nil) }
            try cache.set(writes)
            for pageSize in [1, 7, 50, 200] {
                var seen: [String] = []
                var cursor: String?
                var pages = 0
                while true {
                    let page = try cache.keys(group: "g", prefix: "", after: cursor, limit: pageSize)
                    XCTAssertLessThanOrEqual(page.count, pageSize)
                    if page.isEmpty { break }
                    seen += page
                    cursor = page.last
                    pages += 1
                    if pages > 1000 { XCTFail("paging does not end (\(kind))"); break }
                }
                XCTAssertEqual(seen, all.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }, "\(kind), pages of \(pageSize)")
                XCTAssertEqual(Set(seen).count, all.count, "\(kind), pages of \(pageSize)")
            }
        }
    }

    func testCursorPagingWithPrefix() throws {
        try forBothKinds { cache, kind in
            for i in 0..<30 { try cache.put("p:\(i)", "v"); try cache.put("q:\(i)", "v") }
            var seen: [String] = []
            var cursor: String?
            repeat {
                let page = try cache.keys(group: "g", prefix: "p:", after: cursor, limit: 4)
                seen += page
                cursor = page.count == 4 ? page.last : nil
            } while cursor != nil
            XCTAssertEqual(seen.count, 30, kind)
            XCTAssertEqual(Set(seen).count, 30, kind)
            XCTAssertTrue(seen.allSatisfy { $0.hasPrefix("p:") }, kind)
            XCTAssertEqual(seen, seen.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }, kind)
        }
    }
}
