import Foundation
import XCTest
@testable import LarderCore
import LarderStorage

final class StorePersistenceTests: StoreTestCase {
    func testCommitCloseReopenBringsEverythingBack() throws {
        let store = try makeStore()
        let cache = try openCache(store, "main") {
            $0.memoryMaxCount = 50
            $0.memoryMaxBytes = 4096
            $0.diskMaxCount = 1000
            $0.diskMaxBytes = 1 << 20
            $0.lifespan = 1500
            $0.returnsExpired = true
        }
        try cache.put("k1", #"{"x":1}"#, kind: .json)
        try cache.put("k2", "raw", group: "other", ttl: 0)
        let config = cache.config
        let totals = cache.diskTotals
        try store.commit()
        XCTAssertFalse(store.hasPendingWrites)
        store.close()

        let reopened = try makeStore()
        let again = try XCTUnwrap(reopened.cache(named: "main", create: false))
        XCTAssertEqual(again.config, config)
        XCTAssertEqual(again.config.lifespan, 1500)
        XCTAssertTrue(again.config.returnsExpired)
        XCTAssertEqual(again.config.memory, CacheConfig.Limits(maxCount: 50, maxBytes: 4096))
        XCTAssertEqual(again.config.disk, CacheConfig.Limits(maxCount: 1000, maxBytes: 1 << 20))
        XCTAssertEqual(again.diskTotals.count, totals.count)
        XCTAssertEqual(again.diskTotals.bytes, totals.bytes)
        XCTAssertEqual(again.count, 2)
        XCTAssertEqual(again.bytes, 10)
        let k1 = try XCTUnwrap(again.lookup("k1"))
        XCTAssertEqual(k1.tier, .disk)
        XCTAssertEqual(k1.entry.kind, .json)
        XCTAssertEqual(k1.entry.bytes, bytes(#"{"x":1}"#))
        XCTAssertEqual(k1.entry.storedAt, 1_000_000)
        XCTAssertEqual(k1.expiresAt, 1_001_500)
        XCTAssertEqual(try again.lookup("k2", group: "other")?.entry.ttl, 0)
    }

    func testDefaultConfigSurvivesAReopen() throws {
        let store = try makeStore()
        let created = try XCTUnwrap(store.cache(named: "plain", create: true))
        XCTAssertEqual(created.config, CacheConfig())
        store.close()
        let reopened = try makeStore()
        XCTAssertEqual(try reopened.cache(named: "plain", create: false)?.config, CacheConfig())
    }

    func testCloseCommits() throws {
        let store = try makeStore()
        let cache = try openCache(store)
        try cache.put("k", "v")
        XCTAssertTrue(store.hasPendingWrites)
        store.close()

        let reopened = try makeStore()
        XCTAssertEqual(try reopened.cache(named: "c", create: false)?.text("k"), "v")
    }

    func testUncommittedWritesAreInvisibleToAnotherStoreUntilCommit() throws {
        let writer = try makeStore()
        let cache = try openCache(writer)
        try writer.commit()
        try cache.put("k", "v")
        XCTAssertTrue(writer.hasPendingWrites)

        let reader = try makeStore()
        let view = try XCTUnwrap(reader.cache(named: "c", create: false))
        XCTAssertNil(try view.text("k"))
        XCTAssertEqual(view.count, 0)

        try writer.commit()
        try reader.noticeForeignWrites()
        XCTAssertEqual(try reader.cache(named: "c", create: false)?.text("k"), "v")
    }

    func testCacheCreatedButNotWrittenIsKept() throws {
        let store = try makeStore()
        _ = try openCache(store, "empty")
        store.close()
        let reopened = try makeStore()
        XCTAssertEqual(try reopened.allCaches().map(\.name), ["empty"])
    }

    func testCacheNamedWithoutCreate() throws {
        let store = try makeStore()
        XCTAssertNil(try store.cache(named: "nope", create: false))
        XCTAssertTrue(try store.allCaches().isEmpty)
        let made = try XCTUnwrap(store.cache(named: "yes", create: true))
        XCTAssertTrue(try store.cache(named: "yes", create: false) === made)
        let (again, created) = try store.open("yes", change: CacheConfigChange())
        XCTAssertFalse(created)
        XCTAssertTrue(again === made)
        XCTAssertTrue(try store.open("new", change: CacheConfigChange()).created)
        XCTAssertEqual(try store.allCaches().map(\.name), ["new", "yes"])
    }

    func testRecreatedDirectory() throws {
        let nested = directory.path + "/a/b/c"
        let store = try Store(directory: nested, clock: Clock(fixedAt: 0))
        try openCache(store).put("k", "v")
        store.close()
        let reopened = try Store(directory: nested, clock: Clock(fixedAt: 0))
        defer { reopened.close() }
        XCTAssertEqual(try reopened.cache(named: "c", create: false)?.text("k"), "v")
    }

    func testUnusableDirectoryIsUnavailable() throws {
        let file = directory.path + "/file"
        XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: Data("x".utf8)))
        XCTAssertThrowsError(try Store(directory: file, clock: Clock())) { error in
            guard case StoreError.unavailable = error else { return XCTFail("\(error)") }
        }
    }

    func testManyWritesAcrossSeveralCommits() throws {
        let store = try makeStore()
        let cache = try openCache(store)
        for i in 0..<200 {
            try cache.put("k\(i)", "v\(i)")
            if i % 37 == 0 { try store.commit() }
        }
        store.close()
        let reopened = try makeStore()
        let again = try XCTUnwrap(reopened.cache(named: "c", create: false))
        XCTAssertEqual(again.count, 200)
        for i in stride(from: 0, to: 200, by: 13) { XCTAssertEqual(try again.text("k\(i)"), "v\(i)") }
    }
}
