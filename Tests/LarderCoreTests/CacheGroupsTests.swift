import XCTest
@testable import LarderCore

/// `Cache.groups`: a cache's groups with their entry counts, counted as `keys` lists them.
final class CacheGroupsTests: StoreTestCase {
    /// Runs `body` for a persistent and a memory-only cache.
    private func forBothKinds(_ configure: @escaping (inout CacheConfigChange) -> Void = { _ in },
                              _ body: (Cache, String) throws -> Void) throws {
        for persistent in [true, false] {
            let store = try makeStore(inMemory: true)
            let cache = try openCache(store) {
                $0.persistent = persistent
                configure(&$0)
            }
            try body(cache, persistent ? "persistent" : "memory-only")
        }
    }

    private func all(_ cache: Cache, prefix: String = "") throws -> [String: Int] {
        var out: [String: Int] = [:]
        for g in try cache.groups(prefix: prefix, after: nil, limit: 1000) { out[g.group] = g.count }
        return out
    }

    func testGroupsInByteOrderWithTheirCounts() throws {
        try forBothKinds { cache, kind in
            try cache.put("1", "v", group: "b")
            try cache.put("2", "v", group: "b")
            try cache.put("3", "v", group: "")
            try cache.put("4", "v", group: "a.b")
            try cache.put("5", "v", group: "a")
            try cache.put("6", "v", group: "é")
            try cache.put("7", "v", group: "e\u{301}")
            let groups = try cache.groups(prefix: "", after: nil, limit: 100)
            XCTAssertEqual(groups.map { Array($0.group.utf8) }, ["", "a", "a.b", "b", "e\u{301}", "é"].map { Array($0.utf8) }, kind)
            XCTAssertEqual(groups.map(\.count), [1, 1, 1, 2, 1, 1], kind)
        }
    }

    func testAPrefixListsSubGroups() throws {
        try forBothKinds { cache, kind in
            for (key, group) in [("1", "a"), ("2", "a.b"), ("3", "a.b"), ("4", "a.c.d"), ("5", "ab"), ("6", "b")] {
                try cache.put(key, "v", group: group)
            }
            XCTAssertEqual(try all(cache, prefix: "a."), ["a.b": 2, "a.c.d": 1], kind)
            XCTAssertEqual(try all(cache, prefix: "a"), ["a": 1, "a.b": 2, "a.c.d": 1, "ab": 1], kind)
            XCTAssertEqual(try all(cache, prefix: "a_"), [:], "no LIKE wildcards")
        }
    }

    func testPages() throws {
        try forBothKinds { cache, kind in
            for g in ["", "a", "b", "c"] { try cache.put("k", "v", group: g) }
            XCTAssertEqual(try cache.groups(prefix: "", after: nil, limit: 2).map(\.group), ["", "a"], kind)
            XCTAssertEqual(try cache.groups(prefix: "", after: "", limit: 2).map(\.group), ["a", "b"], kind)
            XCTAssertEqual(try cache.groups(prefix: "", after: "a", limit: 2).map(\.group), ["b", "c"], kind)
            XCTAssertEqual(try cache.groups(prefix: "", after: "bb", limit: 2).map(\.group), ["c"], kind)
            XCTAssertEqual(try cache.groups(prefix: "", after: "c", limit: 2).map(\.group), [], kind)
        }
    }

    func testExpiredEntriesAreNotCountedUnlessTheCacheReturnsThem() throws {
        try forBothKinds { cache, kind in
            try cache.put("fresh", "v", group: "g")
            try cache.put("old", "v", group: "g", ttl: 10)
            try cache.put("old", "v", group: "gone", ttl: 10)
            XCTAssertTrue(cache.context.clock.advance(milliseconds: 20))
            XCTAssertEqual(try all(cache), ["g": 1], kind)
        }
        try forBothKinds({ $0.returnsExpired = true }) { cache, kind in
            try cache.put("old", "v", group: "gone", ttl: 10)
            XCTAssertTrue(cache.context.clock.advance(milliseconds: 20))
            XCTAssertEqual(try all(cache), ["gone": 1], kind)
        }
    }

    func testCountsAgreeWithKeys() throws {
        try forBothKinds { cache, kind in
            for k in 0..<7 { try cache.put("k\(k)", "v", group: k % 2 == 0 ? "even" : "odd", ttl: k == 4 ? 5 : nil) }
            XCTAssertTrue(cache.context.clock.advance(milliseconds: 10))
            for g in try cache.groups(prefix: "", after: nil, limit: 100) {
                XCTAssertEqual(g.count, try cache.allKeys(group: g.group).count, "\(kind) \(g.group)")
            }
        }
    }

    func testAPersistentCacheCountsItsDiskTier() throws {
        let store = try makeStore()
        let cache = try openCache(store)
        try cache.put("1", "v", group: "g")
        try cache.put("2", "v", group: "g")
        _ = try cache.clear(group: nil, tier: .memory)
        XCTAssertEqual(cache.memoryCount, 0)
        XCTAssertEqual(try all(cache), ["g": 2])
    }
}

/// `Cache.groups` of an encrypted cache: its groups are stored as tokens, and listed in clear.
final class EncryptedCacheGroupsTests: StoreTestCase {
    func testAnEncryptedCacheListsItsGroupsInClear() throws {
        let store = try makeStore()
        store.useEncryptionKeys(EncryptionKeys(key: try EncryptionKey(base64: "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="), byCache: [:]))
        let cache = try openCache(store) { $0.encrypted = true }
        for (key, group) in [("1", "a"), ("2", "a.b"), ("3", "a.b"), ("4", ""), ("5", "b")] {
            try cache.put(key, "v", group: group)
        }
        try cache.put("6", "v", group: "a.c", ttl: 10)
        XCTAssertTrue(store.clock.advance(milliseconds: 20))
        let groups = try cache.groups(prefix: "", after: nil, limit: 100)
        XCTAssertEqual(groups, [GroupCount(group: "", count: 1), GroupCount(group: "a", count: 1),
                                GroupCount(group: "a.b", count: 2), GroupCount(group: "b", count: 1)])
        XCTAssertEqual(try cache.groups(prefix: "a.", after: nil, limit: 100), [GroupCount(group: "a.b", count: 2)])
        XCTAssertEqual(try cache.groups(prefix: "", after: "a", limit: 1), [GroupCount(group: "a.b", count: 2)])
    }
}
