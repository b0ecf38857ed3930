import XCTest
@testable import LarderCore
import LarderStorage

final class StoreDropTests: StoreTestCase {
    func testDropRemovesTheCacheAndItsEntries() throws {
        let store = try makeStore()
        let doomed = try openCache(store, "doomed") { $0.lifespan = 777 }
        try doomed.put("k", "v")
        try doomed.put("k2", "v", group: "h")
        let kept = try openCache(store, "kept")
        try kept.put("k", "kept")

        try store.drop("doomed")
        XCTAssertNil(try store.cache(named: "doomed", create: false))
        XCTAssertEqual(try store.allCaches().map(\.name), ["kept"])
        XCTAssertEqual(try kept.text("k"), "kept")

        // A new cache of the same name starts empty, with default settings.
        let fresh = try XCTUnwrap(store.cache(named: "doomed", create: true))
        XCTAssertEqual(fresh.config, CacheConfig())
        XCTAssertEqual(fresh.count, 0)
        XCTAssertNil(try fresh.text("k"))
        XCTAssertEqual(try fresh.allKeys(group: "h"), [])
    }

    func testDropIsPersistent() throws {
        let store = try makeStore()
        try openCache(store, "doomed").put("k", "v")
        try openCache(store, "kept").put("k", "v")
        try store.commit()
        try store.drop("doomed")
        store.close()

        let reopened = try makeStore()
        XCTAssertNil(try reopened.cache(named: "doomed", create: false))
        XCTAssertEqual(try reopened.allCaches().map(\.name), ["kept"])
        let again = try XCTUnwrap(reopened.cache(named: "doomed", create: true))
        XCTAssertEqual(again.count, 0)
        XCTAssertNil(try again.text("k"))
    }

    func testDropMemoryOnlyCache() throws {
        let store = try makeStore()
        try openCache(store, "v") { $0.persistent = false }.put("k", "v")
        try store.drop("v")
        XCTAssertNil(try store.cache(named: "v", create: false))
        let fresh = try XCTUnwrap(store.cache(named: "v", create: true))
        XCTAssertNil(try fresh.text("k"))
        XCTAssertTrue(fresh.config.persistent)
    }

    func testDroppingAnUnknownCacheThrows() throws {
        let store = try makeStore()
        XCTAssertThrowsError(try store.drop("nope")) { error in
            XCTAssertEqual(error as? StoreError, .cacheNotFound("nope"))
        }
        _ = try openCache(store, "once")
        try store.drop("once")
        XCTAssertThrowsError(try store.drop("once")) { error in
            XCTAssertEqual(error as? StoreError, .cacheNotFound("once"))
        }
    }
}
