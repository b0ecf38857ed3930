import XCTest
@testable import LarderCore
import LarderStorage

/// Writes that go ahead only if the live entry is at a revision, or absent
/// (SPEC 6.14): a failed condition writes nothing and says what was found.
final class ConditionalWriteTests: StoreTestCase {
    private let key = EntryKey(group: "g", key: "k")

    private func set(_ cache: Cache, _ text: String, _ condition: WriteCondition? = nil, ttl: Int64? = nil) throws -> Int64 {
        try cache.set(Cache.Write(key: key, kind: .data, bytes: bytes(text), ttl: ttl, condition: condition))
    }

    private func assertConditionFails(revision: Int64?, expected: String, file: StaticString = #filePath, line: UInt = #line,
                                      _ body: () throws -> Void) {
        XCTAssertThrowsError(try body(), file: file, line: line) {
            XCTAssertEqual($0 as? StoreError, .conditionFailed(key: "k", expected: expected, revision: revision), file: file, line: line)
        }
    }

    private func eachKindOfCache(_ body: (Store, Cache) throws -> Void) throws {
        for persistent in [true, false] {
            let store = try makeStore()
            try body(store, try openCache(store, persistent ? "disk" : "memory") { $0.persistent = persistent; $0.lifespan = 1000 })
        }
    }

    func testIfAbsentWritesOnlyWhereThereIsNoEntry() throws {
        try eachKindOfCache { store, cache in
            let first = try set(cache, "first", .absent)
            assertConditionFails(revision: first, expected: "no entry") { _ = try set(cache, "second", .absent) }
            try store.commit()
            XCTAssertEqual(try cache.text("k"), "first")
        }
    }

    func testIfRevisionWritesOnlyOverThatRevision() throws {
        try eachKindOfCache { store, cache in
            assertConditionFails(revision: nil, expected: "revision 7") { _ = try set(cache, "none yet", .revision(7)) }
            let first = try set(cache, "first")
            let second = try set(cache, "second", .revision(first))
            assertConditionFails(revision: second, expected: "revision \(first)") { _ = try set(cache, "stale", .revision(first)) }
            try store.commit()
            XCTAssertEqual(try cache.text("k"), "second")
            XCTAssertEqual(try cache.lookup("k")?.entry.revision, second)
        }
    }

    func testAnExpiredEntryIsAbsentUnlessTheCacheReturnsExpiredEntries() throws {
        try eachKindOfCache { store, cache in
            let old = try set(cache, "old")
            XCTAssertTrue(store.clock.advance(milliseconds: 2000))
            assertConditionFails(revision: nil, expected: "revision \(old)") { _ = try set(cache, "x", .revision(old)) }
            let new = try set(cache, "new", .absent)
            try store.commit()
            XCTAssertEqual(try cache.text("k"), "new")

            var returning = CacheConfigChange()
            returning.returnsExpired = true
            _ = try store.open(cache.name, change: returning)
            XCTAssertTrue(store.clock.advance(milliseconds: 2000))
            assertConditionFails(revision: new, expected: "no entry") { _ = try set(cache, "x", .absent) }
            XCTAssertNotEqual(try set(cache, "newer", .revision(new)), new)
            try store.commit()
        }
    }

    func testOneFailedConditionOfASetManyWritesNothingAndNamesItsElement() throws {
        try eachKindOfCache { store, cache in
            let taken = try set(cache, "taken")
            try store.commit()
            let writes = [
                Cache.Write(key: EntryKey(group: "g", key: "a"), kind: .data, bytes: bytes("a"), ttl: nil, condition: .absent),
                Cache.Write(key: key, kind: .data, bytes: bytes("b"), ttl: nil, condition: .absent),
            ]
            XCTAssertThrowsError(try cache.set(writes)) {
                XCTAssertEqual($0 as? StoreError, .element(index: 1, error: .conditionFailed(key: "k", expected: "no entry", revision: taken)))
            }
            try store.commit()
            XCTAssertNil(try cache.text("a"))
            XCTAssertEqual(try cache.text("k"), "taken")
        }
    }

    func testRemoveAndTouchTakeARevision() throws {
        try eachKindOfCache { store, cache in
            let revision = try set(cache, "v")
            assertConditionFails(revision: revision, expected: "revision \(revision + 100)") { _ = try cache.touch(key, ifRevision: revision + 100) }
            XCTAssertEqual(try cache.touch(key, ifRevision: revision), .touched)
            XCTAssertEqual(try cache.lookup("k")?.entry.revision, revision, "a touch keeps the revision")
            assertConditionFails(revision: revision, expected: "revision \(revision + 100)") { _ = try cache.remove(key, ifRevision: revision + 100) }
            XCTAssertTrue(try cache.contains("k"))
            XCTAssertTrue(try cache.remove(key, ifRevision: revision))
            assertConditionFails(revision: nil, expected: "revision \(revision)") { _ = try cache.remove(key, ifRevision: revision) }
            try store.commit()
        }
    }

    /// A condition is checked against the store, not this process's memory
    /// tier: another process's write in between fails it.
    func testAnotherProcessesWriteFailsTheCondition() throws {
        let first = try makeStore()
        let second = try makeStore()
        let mine = try openCache(first)
        let seen = try set(mine, "mine")
        try first.commit()
        let theirs = try openCache(second)
        let overwritten = try theirs.set(Cache.Write(key: key, kind: .data, bytes: bytes("theirs"), ttl: nil))
        try second.commit()
        assertConditionFails(revision: overwritten, expected: "revision \(seen)") { _ = try set(mine, "lost update", .revision(seen)) }
        try first.commit()
        XCTAssertEqual(try mine.text("k"), "theirs")
    }
}
