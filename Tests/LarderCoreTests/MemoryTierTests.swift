import XCTest
@testable import LarderCore

/// The keys `evict` hands over, in the order it hands them.
private func evicted(from tier: MemoryTier, toCount count: Int, bytes: Int) -> [String] {
    var keys: [String] = []
    tier.evict(toCount: count, bytes: bytes) { k, _ in keys.append(k.key) }
    return keys
}

final class MemoryTierTests: XCTestCase {
    private func key(_ k: String) -> EntryKey { EntryKey(group: "g", key: k) }
    private func entry(size: Int, fill: UInt8 = 1) -> Entry {
        Entry(kind: .data, bytes: [UInt8](repeating: fill, count: size), storedAt: 0, ttl: nil)
    }

    func testEvictReturnsOldestFirst() {
        let tier = MemoryTier()
        for k in ["a", "b", "c", "d", "e"] { tier.put(key(k), entry(size: 1)) }
        XCTAssertEqual(evicted(from: tier, toCount: 2, bytes: 0), ["a", "b", "c"])
        XCTAssertEqual(tier.count, 2)
        XCTAssertEqual(Set(tier.keys().map(\.key)), ["d", "e"])
    }

    func testGetRefreshesRecency() {
        let tier = MemoryTier()
        for k in ["a", "b", "c"] { tier.put(key(k), entry(size: 1)) }
        XCTAssertNotNil(tier.get(key("a")))
        XCTAssertEqual(evicted(from: tier, toCount: 1, bytes: 0), ["b", "c"])
        XCTAssertTrue(tier.contains(key("a")))
    }

    func testPeekDoesNotRefreshRecency() {
        let tier = MemoryTier()
        for k in ["a", "b"] { tier.put(key(k), entry(size: 1)) }
        XCTAssertNotNil(tier.peek(key("a")))
        XCTAssertEqual(evicted(from: tier, toCount: 1, bytes: 0), ["a"])
    }

    func testReplacingRefreshesRecencyAndAdjustsBytes() {
        let tier = MemoryTier()
        tier.put(key("a"), entry(size: 10))
        tier.put(key("b"), entry(size: 5))
        XCTAssertEqual(tier.bytes, 15)
        tier.put(key("a"), entry(size: 3, fill: 7))
        XCTAssertEqual(tier.count, 2)
        XCTAssertEqual(tier.bytes, 8)
        XCTAssertEqual(tier.peek(key("a"))?.bytes, [7, 7, 7])
        tier.put(key("a"), entry(size: 20))
        XCTAssertEqual(tier.bytes, 25)
        // "a" was replaced last, so "b" is the least recently used.
        XCTAssertEqual(evicted(from: tier, toCount: 1, bytes: 0), ["b"])
        XCTAssertEqual(tier.bytes, 20)
    }

    func testCountLimitEvictsLeastRecentlyUsed() {
        let tier = MemoryTier()
        for k in ["a", "b", "c", "d"] { tier.put(key(k), entry(size: 1)) }
        _ = tier.get(key("a"))
        _ = tier.get(key("c"))
        // Order, oldest first: b, d, a, c.
        XCTAssertEqual(evicted(from: tier, toCount: 3, bytes: 0), ["b"])
        XCTAssertEqual(evicted(from: tier, toCount: 1, bytes: 0), ["d", "a"])
        XCTAssertEqual(tier.keys().map(\.key), ["c"])
    }

    func testByteLimitEvictsLeastRecentlyUsed() {
        let tier = MemoryTier()
        tier.put(key("a"), entry(size: 10))
        tier.put(key("b"), entry(size: 10))
        tier.put(key("c"), entry(size: 10))
        _ = tier.get(key("a"))
        // Order, oldest first: b, c, a.
        XCTAssertEqual(evicted(from: tier, toCount: 0, bytes: 25), ["b"])
        XCTAssertEqual(tier.bytes, 20)
        XCTAssertEqual(evicted(from: tier, toCount: 0, bytes: 10), ["c"])
        XCTAssertEqual(tier.bytes, 10)
        XCTAssertTrue(tier.contains(key("a")))
    }

    func testEvictWithinLimitsOrUnlimitedDoesNothing() {
        let tier = MemoryTier()
        for k in ["a", "b", "c"] { tier.put(key(k), entry(size: 100)) }
        XCTAssertTrue(evicted(from: tier, toCount: 0, bytes: 0).isEmpty)
        XCTAssertTrue(evicted(from: tier, toCount: 3, bytes: 300).isEmpty)
        XCTAssertEqual(tier.count, 3)
        XCTAssertEqual(tier.bytes, 300)
    }

    func testEitherLimitTriggersEviction() {
        let tier = MemoryTier()
        for k in ["a", "b", "c"] { tier.put(key(k), entry(size: 4)) }
        // Count is fine (3 <= 5) but bytes are not (12 > 8).
        XCTAssertEqual(evicted(from: tier, toCount: 5, bytes: 8), ["a"])
        // Bytes are fine (8 <= 100) but count is not (2 > 1).
        XCTAssertEqual(evicted(from: tier, toCount: 1, bytes: 100), ["b"])
    }

    func testRemove() {
        let tier = MemoryTier()
        tier.put(key("a"), entry(size: 3))
        tier.put(key("b"), entry(size: 4))
        XCTAssertEqual(tier.remove(key("a"))?.size, 3)
        XCTAssertNil(tier.remove(key("a")))
        XCTAssertNil(tier.remove(key("missing")))
        XCTAssertFalse(tier.contains(key("a")))
        XCTAssertNil(tier.get(key("a")))
        XCTAssertEqual(tier.count, 1)
        XCTAssertEqual(tier.bytes, 4)
    }

    func testOrderStaysRightWhenSlotsAreReused() {
        let tier = MemoryTier()
        for k in ["a", "b", "c", "d"] { tier.put(key(k), entry(size: 1)) }
        tier.remove(key("b"))
        tier.remove(key("a"))
        tier.put(key("e"), entry(size: 1))
        tier.put(key("f"), entry(size: 1))
        _ = tier.get(key("c"))
        // Oldest first: d, e, f, c.
        XCTAssertEqual(evicted(from: tier, toCount: 1, bytes: 0), ["d", "e", "f"])
        XCTAssertEqual(tier.keys().map(\.key), ["c"])
        tier.remove(key("c"))
        XCTAssertEqual(tier.count, 0)
        XCTAssertEqual(tier.bytes, 0)
        tier.put(key("z"), entry(size: 2))
        XCTAssertEqual(tier.get(key("z"))?.size, 2)
    }

    func testUpdateKeepsPositionAndAdjustsBytes() {
        let tier = MemoryTier()
        tier.put(key("a"), entry(size: 2))
        tier.put(key("b"), entry(size: 2))
        tier.update(key("a")) { $0.validatedAt = 42 }
        XCTAssertEqual(tier.peek(key("a"))?.validatedAt, 42)
        tier.update(key("a")) { $0.bytes = [1, 2, 3, 4, 5] }
        XCTAssertEqual(tier.bytes, 7)
        tier.update(key("missing")) { $0.validatedAt = 1 }
        XCTAssertFalse(tier.contains(key("missing")))
        XCTAssertEqual(evicted(from: tier, toCount: 1, bytes: 0), ["a"])
    }

    func testKeysOfOneGroup() {
        let tier = MemoryTier()
        tier.put(EntryKey(group: "x", key: "1"), entry(size: 1))
        tier.put(EntryKey(group: "y", key: "1"), entry(size: 1))
        tier.put(EntryKey(group: "x", key: "2"), entry(size: 1))
        XCTAssertEqual(Set(tier.keys(inGroup: "x").map(\.key)), ["1", "2"])
        XCTAssertEqual(tier.keys(inGroup: "y").map(\.key), ["1"])
        XCTAssertEqual(tier.keys().count, 3)
        tier.removeAll()
        XCTAssertEqual(tier.count, 0)
        XCTAssertEqual(tier.bytes, 0)
        XCTAssertTrue(evicted(from: tier, toCount: 1, bytes: 1).isEmpty)
    }
}

final class EntryKeyTests: XCTestCase {
    func lookUp(_ tier: MemoryTier, _ group: String, _ key: String) -> Entry? {
        var group = group, key = key
        return group.withUTF8 { g in key.withUTF8 { k in tier.use(group: g, key: k).map(tier.entry(at:)) } }
    }

    func testKeysAreComparedByTheirBytes() {
        XCTAssertNotEqual(EntryKey(group: "", key: "é"), EntryKey(group: "", key: "e\u{301}"))
        XCTAssertEqual(EntryKey(group: "g", key: "é"), EntryKey(group: "g", key: "é"))
        // The same bytes split differently between group and key are different keys.
        XCTAssertNotEqual(EntryKey(group: "ab", key: "c"), EntryKey(group: "a", key: "bc"))
        XCTAssertNotEqual(EntryKey(group: "", key: "abc"), EntryKey(group: "abc", key: ""))
        let k = EntryKey(group: "grüppe", key: "schlüssel 🙂")
        XCTAssertEqual(k.group, "grüppe")
        XCTAssertEqual(k.key, "schlüssel 🙂")
    }

    func testLookupsFromBytesFindWhatWasPutByKey() {
        let tier = MemoryTier()
        let stored = Entry(kind: .json, bytes: Array("1".utf8), storedAt: 0, ttl: nil)
        tier.put(EntryKey(group: "ab", key: "c"), stored)
        tier.put(EntryKey(group: "", key: "é"), stored)
        XCTAssertEqual(lookUp(tier, "ab", "c")?.bytes, stored.bytes)
        XCTAssertNil(lookUp(tier, "a", "bc"))
        XCTAssertNil(lookUp(tier, "", "abc"))
        XCTAssertNotNil(lookUp(tier, "", "é"))
        XCTAssertNil(lookUp(tier, "", "e\u{301}"))
    }

    func testALookupFromBytesRefreshesRecency() {
        let tier = MemoryTier()
        let one = Entry(kind: .json, bytes: [0x31], storedAt: 0, ttl: nil)
        for k in ["a", "b", "c"] { tier.put(EntryKey(group: "", key: k), one) }
        XCTAssertNotNil(lookUp(tier, "", "a"))
        XCTAssertEqual(evicted(from: tier, toCount: 1, bytes: 0), ["b", "c"])
    }

    func testManyKeysSurviveGrowthAndRemoval() {
        let tier = MemoryTier()
        let one = Entry(kind: .json, bytes: [0x31], storedAt: 0, ttl: nil)
        for n in 0..<5_000 { tier.put(EntryKey(group: "g\(n % 3)", key: "k\(n)"), one) }
        for n in stride(from: 0, to: 5_000, by: 2) { XCTAssertNotNil(tier.remove(EntryKey(group: "g\(n % 3)", key: "k\(n)"))) }
        XCTAssertEqual(tier.count, 2_500)
        for n in 0..<5_000 {
            XCTAssertEqual(lookUp(tier, "g\(n % 3)", "k\(n)") != nil, n % 2 == 1, "k\(n)")
        }
        XCTAssertEqual(tier.keys(inGroup: "g0").count, tier.keys().filter { $0.group == "g0" }.count)
    }
}

extension EntryKeyTests {
    /// Keys up to 24 bytes (group and key together) are held inline, longer ones apart.
    func testKeysEitherSideOfTheInlineLimitBehaveAlike() {
        let tier = MemoryTier()
        let one = Entry(kind: .json, bytes: [0x31], storedAt: 0, ttl: nil)
        let cases: [(String, String)] = [
            ("", String(repeating: "k", count: 24)), ("", String(repeating: "k", count: 25)),
            ("gggg", String(repeating: "k", count: 20)), ("gggg", String(repeating: "k", count: 21)),
            (String(repeating: "g", count: 30), "k"), ("", ""), ("g", ""),
        ]
        for (g, k) in cases { tier.put(EntryKey(group: g, key: k), one) }
        for (g, k) in cases {
            let key = EntryKey(group: g, key: k)
            XCTAssertEqual(key.group, g)
            XCTAssertEqual(key.key, k)
            XCTAssertNotNil(lookUp(tier, g, k), "\(g.count)+\(k.count) bytes")
            XCTAssertNil(lookUp(tier, g, k + "x"))
            XCTAssertNil(lookUp(tier, g + "x", k))
            XCTAssertTrue(tier.contains(key))
        }
        // The same 25 bytes split differently are another key.
        XCTAssertNil(lookUp(tier, "k", String(repeating: "k", count: 24)))
        XCTAssertNotEqual(EntryKey(group: "k", key: String(repeating: "k", count: 24)), EntryKey(group: "", key: String(repeating: "k", count: 25)))
    }
}
