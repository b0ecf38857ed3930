import XCTest
@testable import LarderCore
import LarderStorage

final class CacheRoundTripTests: StoreTestCase {
    func testJSONRoundTrip() throws {
        let cache = try openCache(makeStore())
        let json = #"{"a":[1,2.5,"x"],"b":null}"#
        try cache.put("k", json, kind: .json)
        let found = try XCTUnwrap(cache.lookup("k"))
        XCTAssertEqual(found.entry.kind, .json)
        XCTAssertEqual(found.entry.bytes, bytes(json))
        XCTAssertFalse(found.expired)
        XCTAssertEqual(found.entry.storedAt, 1_000_000)
        XCTAssertNil(found.expiresAt)
    }

    func testDataRoundTripKeepsEveryByte() throws {
        let store = try makeStore()
        let cache = try openCache(store)
        let data: [UInt8] = Array(0...255) + [0, 0, 255]
        try cache.set([.init(key: EntryKey(group: "g", key: "bin"), kind: .data, bytes: data, ttl: nil)])
        XCTAssertEqual(try cache.lookup("bin")?.entry.kind, .data)
        XCTAssertEqual(try cache.lookup("bin")?.entry.bytes, data)
        // And from the disk tier.
        _ = try cache.clear(group: nil, tier: .memory)
        let fromDisk = try XCTUnwrap(cache.lookup("bin"))
        XCTAssertEqual(fromDisk.tier, .disk)
        XCTAssertEqual(fromDisk.entry.kind, .data)
        XCTAssertEqual(fromDisk.entry.bytes, data)
    }

    /// A value lent as bytes (a request's) is read in place by SQLite and
    /// copied only for the memory tier: what was stored must not change when
    /// the lender reuses its bytes, in either tier, nor a later write of the
    /// same statement read them.
    func testAValueLentAsBytesIsStoredAsItWasWhenLent() throws {
        let store = try makeStore()
        let cache = try openCache(store) { $0.memoryMaxBytes = 80 }
        var small = Array("small".utf8), big = [UInt8](repeating: UInt8(ascii: "b"), count: 11)
        try small.withUnsafeBufferPointer { (value) throws(StoreError) in
            try cache.set(EntryKey(group: "g", key: "s"), kind: .data, value: value, ttl: nil)
        }
        try big.withUnsafeBufferPointer { (value) throws(StoreError) in
            try cache.set(EntryKey(group: "g", key: "b"), kind: .data, value: value, ttl: 5_000)
        }
        small.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
        big.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
        try cache.put("other", "o")
        try store.commit()

        let s = try XCTUnwrap(cache.lookup("s"))
        XCTAssertEqual(s.tier, .memory)
        XCTAssertEqual(s.entry.bytes, Array("small".utf8))
        let b = try XCTUnwrap(cache.lookup("b"))
        XCTAssertEqual(b.tier, .disk, "over an eighth of memory.maxBytes")
        XCTAssertEqual(b.entry.bytes, [UInt8](repeating: UInt8(ascii: "b"), count: 11))
        XCTAssertEqual(b.entry.kind, .data)
        XCTAssertEqual(b.entry.ttl, 5_000)
        XCTAssertEqual(cache.bytes, 5 + 11 + 1)
        _ = try cache.clear(group: nil, tier: .memory)
        XCTAssertEqual(try cache.lookup("s")?.entry.bytes, Array("small".utf8))
    }

    func testEmptyValueRoundTrip() throws {
        let cache = try openCache(makeStore())
        try cache.put("empty", "")
        XCTAssertEqual(try cache.text("empty"), "")
        _ = try cache.clear(group: nil, tier: .memory)
        XCTAssertEqual(try cache.text("empty"), "")
        XCTAssertEqual(cache.count, 1)
    }

    func testMissReturnsNil() throws {
        let cache = try openCache(makeStore())
        XCTAssertNil(try cache.lookup("nothing"))
        XCTAssertEqual(try cache.has(EntryKey(group: "g", key: "nothing")).found, false)
    }

    func testOverwriteReplacesValueAndKind() throws {
        let cache = try openCache(makeStore())
        try cache.put("k", "first")
        try cache.put("k", "[2]", kind: .json)
        XCTAssertEqual(try cache.text("k"), "[2]")
        XCTAssertEqual(try cache.lookup("k")?.entry.kind, .json)
        XCTAssertEqual(cache.count, 1)
        XCTAssertEqual(cache.bytes, 3)
        _ = try cache.clear(group: nil, tier: .memory)
        XCTAssertEqual(try cache.text("k"), "[2]")
    }

    func testGroupsIsolateKeys() throws {
        let cache = try openCache(makeStore())
        try cache.put("same", "one", group: "g1")
        try cache.put("same", "two", group: "g2")
        XCTAssertEqual(try cache.text("same", group: "g1"), "one")
        XCTAssertEqual(try cache.text("same", group: "g2"), "two")
        XCTAssertNil(try cache.text("same", group: "g3"))
        XCTAssertEqual(try cache.allKeys(group: "g1"), ["same"])

        XCTAssertTrue(try cache.remove(EntryKey(group: "g1", key: "same")))
        XCTAssertNil(try cache.text("same", group: "g1"))
        XCTAssertEqual(try cache.text("same", group: "g2"), "two")
        _ = try cache.clear(group: nil, tier: .memory)
        XCTAssertNil(try cache.text("same", group: "g1"))
        XCTAssertEqual(try cache.text("same", group: "g2"), "two")
    }

    func testCachesIsolateKeys() throws {
        let store = try makeStore()
        let one = try openCache(store, "one")
        let two = try openCache(store, "two")
        try one.put("k", "1")
        try two.put("k", "2")
        XCTAssertEqual(try one.text("k"), "1")
        XCTAssertEqual(try two.text("k"), "2")
        XCTAssertEqual(one.count, 1)
        XCTAssertEqual(two.count, 1)
    }

    static let awkward = ["a/b", "..", ".", "x\ny", "ключ", "🙂", " ", "a\u{0}b", "'; DROP TABLE entries; --", "%_*", "Ab", "ab", "é"]

    func testAwkwardKeysAndGroupNames() throws {
        let store = try makeStore()
        let cache = try openCache(store)
        for group in Self.awkward {
            for key in Self.awkward { try cache.put(key, "\(group)|\(key)", group: group) }
        }
        XCTAssertEqual(cache.count, Self.awkward.count * Self.awkward.count)
        try store.commit()

        func check(_ cache: Cache, _ where_: String) throws {
            for group in Self.awkward {
                for key in Self.awkward {
                    // Compared as bytes: String's == would accept a canonically equivalent value.
                    XCTAssertEqual(try cache.lookup(key, group: group)?.entry.bytes, bytes("\(group)|\(key)"),
                                   "\(where_): \(group.debugDescription) \(key.debugDescription)")
                }
                XCTAssertEqual(Set(try cache.allKeys(group: group).map { Array($0.utf8) }), Set(Self.awkward.map { Array($0.utf8) }),
                               "\(where_): keys of \(group.debugDescription)")
            }
        }
        try check(cache, "memory")
        _ = try cache.clear(group: nil, tier: .memory)
        try check(cache, "disk")
        store.close()

        let reopened = try makeStore()
        try check(try XCTUnwrap(reopened.cache(named: "c", create: false)), "reopened")
    }

    func testDefaultGroupIsSeparateFromOthers() throws {
        let cache = try openCache(makeStore())
        try cache.put("k", "default", group: "")
        try cache.put("k", "space", group: " ")
        _ = try cache.clear(group: nil, tier: .memory)
        XCTAssertEqual(try cache.text("k", group: ""), "default")
        XCTAssertEqual(try cache.text("k", group: " "), "space")
    }

    func testAwkwardCacheNames() throws {
        let store = try makeStore()
        // PostgreSQL's text cannot hold U+0000: such a name is refused, saying so.
        let names = TestEngine.isPostgreSQL ? Self.awkward.filter { !$0.contains("\u{0}") } : Self.awkward
        for name in names {
            try openCache(store, name).put("k", name)
        }
        if TestEngine.isPostgreSQL {
            XCTAssertThrowsError(try openCache(store, "a\u{0}b")) { error in
                guard case StoreError.invalidArgument(_, let reason) = error else { return XCTFail("\(error)") }
                XCTAssertTrue(reason.contains("U+0000"), reason)
            }
        }
        store.close()
        let reopened = try makeStore()
        XCTAssertEqual(Set(try reopened.allCaches().map { Array($0.name.utf8) }), Set(names.map { Array($0.utf8) }))
        for name in names {
            XCTAssertEqual(try reopened.cache(named: name, create: false)?.lookup("k")?.entry.bytes, bytes(name), name.debugDescription)
        }
    }

    func testGetPromotesDiskHitIntoMemory() throws {
        let store = try makeStore()
        let cache = try openCache(store)
        try cache.put("k", "v")
        XCTAssertEqual(try cache.lookup("k")?.tier, .memory)
        store.close()

        let reopened = try makeStore()
        let again = try XCTUnwrap(reopened.cache(named: "c", create: false))
        XCTAssertEqual(again.memoryCount, 0)
        XCTAssertEqual(try again.lookup("k")?.tier, .disk)
        XCTAssertEqual(again.memoryCount, 1)
        XCTAssertEqual(try again.lookup("k")?.tier, .memory)
        XCTAssertEqual(try again.text("k"), "v")
    }

    func testHasDoesNotPromote() throws {
        let cache = try openCache(makeStore())
        try cache.put("k", "v")
        _ = try cache.clear(group: nil, tier: .memory)
        XCTAssertTrue(try cache.contains("k"))
        XCTAssertEqual(cache.memoryCount, 0)
        XCTAssertEqual(try cache.lookup("k")?.tier, .disk)
    }

    func testRemoveFromEveryTier() throws {
        let store = try makeStore()
        let cache = try openCache(store)
        try cache.put("a", "12345")
        try cache.put("b", "678")
        XCTAssertTrue(try cache.remove(EntryKey(group: "g", key: "a")))
        XCTAssertFalse(try cache.remove(EntryKey(group: "g", key: "a")))
        XCTAssertNil(try cache.text("a"))
        XCTAssertEqual(cache.count, 1)
        XCTAssertEqual(cache.bytes, 3)
        XCTAssertEqual(cache.memoryCount, 1)
        // Removing something only on disk.
        _ = try cache.clear(group: nil, tier: .memory)
        XCTAssertTrue(try cache.remove(EntryKey(group: "g", key: "b")))
        XCTAssertNil(try cache.text("b"))
        XCTAssertEqual(cache.diskTotals.count, 0)
        XCTAssertEqual(cache.diskTotals.bytes, 0)
        store.close()
        let reopened = try makeStore()
        XCTAssertEqual(try reopened.cache(named: "c", create: false)?.count, 0)
    }

    func testSetManyInOneCall() throws {
        let cache = try openCache(makeStore())
        let writes = (0..<50).map { Cache.Write(key: EntryKey(group: "g", key: "k\($0)"), kind: .data, bytes: bytes("v\($0)"), ttl: nil) }
        try cache.set(writes)
        XCTAssertEqual(cache.count, 50)
        XCTAssertEqual(cache.memoryCount, 50)
        for i in 0..<50 { XCTAssertEqual(try cache.text("k\(i)"), "v\(i)") }
    }

    func testSameKeyTwiceInOneSetKeepsTheLast() throws {
        let cache = try openCache(makeStore())
        let k = EntryKey(group: "g", key: "k")
        try cache.set([.init(key: k, kind: .data, bytes: bytes("first"), ttl: nil),
                       .init(key: k, kind: .data, bytes: bytes("second!"), ttl: nil)])
        XCTAssertEqual(try cache.text("k"), "second!")
        XCTAssertEqual(cache.count, 1)
        XCTAssertEqual(cache.bytes, 7)
        XCTAssertEqual(cache.memoryBytes, 7)
        _ = try cache.clear(group: nil, tier: .memory)
        XCTAssertEqual(try cache.text("k"), "second!")
    }
}
