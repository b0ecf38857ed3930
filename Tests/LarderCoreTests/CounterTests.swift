import XCTest
@testable import LarderCore
import LarderStorage

/// `cache.increment`'s core (SPEC 6.14, 9.54): integers added to in place,
/// from `initial` where there is no live entry, within ±(2^53 − 1).
final class CounterTests: StoreTestCase {
    private let key = EntryKey(group: "g", key: "n")

    private func eachKindOfCache(_ body: (Store, Cache) throws -> Void) throws {
        for persistent in [true, false] {
            let store = try makeStore()
            try body(store, try openCache(store, persistent ? "disk" : "memory") { $0.persistent = persistent; $0.lifespan = 1000 })
            try store.commit()
        }
    }

    func testAddsFromInitialThenFromTheStoredValue() throws {
        try eachKindOfCache { store, cache in
            let first = try cache.increment(key, by: 5, initial: 10, ttl: nil)
            XCTAssertEqual(first.value, 15)
            let second = try cache.increment(key, by: -20, initial: 10, ttl: nil)
            XCTAssertEqual(second.value, -5)
            XCTAssertNotEqual(second.revision, first.revision)
            try store.commit()
            if cache.config.persistent { _ = try cache.clear(group: nil, tier: .memory) }
            XCTAssertEqual(try cache.lookup("n")?.entry.bytes, bytes("-5"))
            XCTAssertEqual(try cache.lookup("n")?.entry.revision, second.revision)
        }
    }

    func testAnExpiredCounterStartsAgainUnlessTheCacheReturnsExpiredEntries() throws {
        try eachKindOfCache { store, cache in
            XCTAssertEqual(try cache.increment(key, by: 1, initial: 41, ttl: nil).value, 42)
            XCTAssertTrue(store.clock.advance(milliseconds: 2000))
            XCTAssertEqual(try cache.increment(key, by: 1, initial: 0, ttl: nil).value, 1, "expired: started again")
            var returning = CacheConfigChange()
            returning.returnsExpired = true
            _ = try store.open(cache.name, change: returning)
            XCTAssertTrue(store.clock.advance(milliseconds: 2000))
            XCTAssertEqual(try cache.increment(key, by: 1, initial: 0, ttl: nil).value, 2, "expired but returned: added to")
        }
    }

    func testTheLifetimeRestartsAsASetsWould() throws {
        try eachKindOfCache { store, cache in
            _ = try cache.increment(key, by: 1, initial: 0, ttl: 60_000)
            XCTAssertEqual(try cache.lookup("n")?.expiresAt, store.clock.now + 60_000)
            XCTAssertTrue(store.clock.advance(milliseconds: 500))
            _ = try cache.increment(key, by: 1, initial: 0, ttl: nil)
            XCTAssertEqual(try cache.lookup("n")?.expiresAt, store.clock.now + 1000, "no ttl: the cache's lifespan, from now")
        }
    }

    func testWhatIsNotAnIntegerIsRefusedAndLeftAlone() throws {
        try eachKindOfCache { store, cache in
            for (text, kind) in [("\"seven\"", Entry.Kind.json), ("1.5", .json), ("9007199254740992", .json), ("7", .data)] {
                try cache.set(Cache.Write(key: key, kind: kind, bytes: bytes(text), ttl: nil))
                XCTAssertThrowsError(try cache.increment(key, by: 1, initial: 0, ttl: nil), text) {
                    guard case .notAnInteger(key: "n", _)? = $0 as? StoreError else { return XCTFail("\(text): \($0)") }
                }
                XCTAssertEqual(try cache.lookup("n")?.entry.bytes, bytes(text))
            }
            try cache.set(Cache.Write(key: key, kind: .json, bytes: bytes("9007199254740990"), ttl: nil))
            XCTAssertEqual(try cache.increment(key, by: 1, initial: 0, ttl: nil).value, Cache.largestCount)
            XCTAssertThrowsError(try cache.increment(key, by: 1, initial: 0, ttl: nil)) {
                guard case .notAnInteger(key: "n", _)? = $0 as? StoreError else { return XCTFail("\($0)") }
            }
            XCTAssertEqual(try cache.increment(key, by: -2 * Cache.largestCount, initial: 0, ttl: nil).value, -Cache.largestCount)
            try store.commit()
        }
    }

    /// A counter is read exactly, the same on both engines (PostgreSQL adds
    /// in SQL, in numeric arithmetic): any JSON spelling of an integer
    /// counts, and a number a Double would round to one does not.
    func testEveryJSONSpellingOfAnIntegerCountsAndNothingRoundedDoes() throws {
        let counted: [(String, Int64)] = [
            ("5", 6), ("-0", 1), ("5.0", 6), ("5e2", 501), ("5E+2", 501), ("500e-2", 6), ("0.0e0", 1), ("1e0003", 1001),
            ("-9007199254740990", -9007199254740989), ("90071992547409.90e2", Cache.largestCount),
            ("1" + String(repeating: "0", count: 14) + ".0" + String(repeating: "0", count: 40), 100_000_000_000_001),
        ]
        let refused = [
            "5.5", "5e-1", "9007199254740992", "9007199254740993", "9007199254740990.5", "1e16", "1e99999",
            "1" + String(repeating: "0", count: 14) + ".0" + String(repeating: "0", count: 48), "[1]", "true", "\"1\"", "1e",
        ]
        try eachKindOfCache { store, cache in
            for (text, sum) in counted {
                try cache.set(Cache.Write(key: key, kind: .json, bytes: bytes(text), ttl: nil))
                XCTAssertEqual(try cache.increment(key, by: 1, initial: 0, ttl: nil).value, sum, text)
            }
            for text in refused {
                try cache.set(Cache.Write(key: key, kind: .json, bytes: bytes(text), ttl: nil))
                XCTAssertThrowsError(try cache.increment(key, by: 1, initial: 0, ttl: nil), text) {
                    guard case .notAnInteger(key: "n", _)? = $0 as? StoreError else { return XCTFail("\(text): \($0)") }
                }
                XCTAssertEqual(try cache.lookup("n")?.entry.bytes, bytes(text), "\(text) is left as it was")
            }
            try store.commit()
        }
    }

    /// Two processes on one store: each adds to what the other stored.
    func testIncrementsOfTwoProcessesAddUp() throws {
        let first = try makeStore()
        let second = try makeStore()
        let mine = try openCache(first)
        try first.commit()
        let theirs = try openCache(second)
        try second.commit()
        for _ in 0..<10 {
            _ = try mine.increment(key, by: 1, initial: 0, ttl: nil)
            try first.commit()
            _ = try theirs.increment(key, by: 1, initial: 0, ttl: nil)
            try second.commit()
        }
        XCTAssertEqual(try mine.increment(key, by: 0, initial: 0, ttl: nil).value, 20)
        try first.commit()
    }
}
