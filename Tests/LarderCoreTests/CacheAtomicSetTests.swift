import XCTest
@testable import LarderCore

/// `set` with many entries stores all of them or none.
final class CacheAtomicSetTests: StoreTestCase {
    private func write(_ key: String, _ size: Int) -> Cache.Write {
        Cache.Write(key: EntryKey(group: "g", key: key), kind: .data, bytes: [UInt8](repeating: 65, count: size), ttl: nil)
    }

    func testOneOversizedEntryStoresNothing() throws {
        for persistent in [true, false] {
            let store = try makeStore(inMemory: true)
            let log = EventLog()
            log.attach(to: store)
            let cache = try openCache(store) {
                $0.persistent = persistent
                if persistent { $0.diskMaxBytes = 10 } else { $0.memoryMaxBytes = 10 }
            }
            try cache.put("old", "previous")
            assertInvalidArgument(field: "value") {
                try cache.set([self.write("a", 3), self.write("old", 4), self.write("big", 11), self.write("c", 3)])
            }
            XCTAssertNil(try cache.text("a"))
            XCTAssertNil(try cache.text("big"))
            XCTAssertNil(try cache.text("c"))
            XCTAssertEqual(try cache.text("old"), "previous")
            XCTAssertEqual(cache.count, 1)
            XCTAssertEqual(cache.bytes, 8)
            XCTAssertEqual(cache.memoryCount, 1)
            XCTAssertEqual(try cache.allKeys(), ["old"])
            XCTAssertTrue(log.events.isEmpty)
        }
    }

    func testNothingReachesTheStoreFile() throws {
        let store = try makeStore()
        let cache = try openCache(store) { $0.diskMaxBytes = 10 }
        try store.commit()
        assertInvalidArgument(field: "value") { try cache.set([self.write("a", 3), self.write("big", 11)]) }
        try store.commit()
        store.close()
        let reopened = try makeStore()
        let again = try XCTUnwrap(reopened.cache(named: "c", create: false))
        XCTAssertEqual(again.count, 0)
        XCTAssertNil(try again.text("a"))
    }

    func testEntriesThatFitEachButNotTogetherAreStoredThenEvicted() throws {
        let store = try makeStore()
        let log = EventLog()
        log.attach(to: store)
        let cache = try openCache(store) { $0.diskMaxBytes = 10 }
        try cache.set([write("a", 4), write("b", 4), write("c", 4)])
        XCTAssertEqual(log.evictedKeys(tier: .disk), ["a"])
        XCTAssertEqual(try cache.allKeys(), ["b", "c"])
        XCTAssertEqual(cache.bytes, 8)
    }
}
