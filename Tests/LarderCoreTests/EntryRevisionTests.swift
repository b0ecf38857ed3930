import XCTest
@testable import LarderCore
import LarderStorage

/// Every write of an entry gives it a revision never given before in the
/// store (SPEC 6.14): across removals, reopening, rollbacks and processes.
final class EntryRevisionTests: StoreTestCase {
    private func set(_ cache: Cache, _ key: String, _ text: String = "v") throws -> Int64 {
        try cache.set(Cache.Write(key: EntryKey(group: "g", key: key), kind: .data, bytes: bytes(text), ttl: nil))
    }

    func testEveryWriteOfAnEntryGivesItANewRevision() throws {
        let store = try makeStore()
        let cache = try openCache(store)
        var seen: [Int64] = []
        for text in ["1", "2", "2", "3"] {
            let revision = try set(cache, "k", text)
            XCTAssertEqual(try cache.lookup("k")?.entry.revision, revision)
            seen.append(revision)
        }
        try store.commit()
        XCTAssertEqual(Set(seen).count, seen.count, "\(seen)")
        XCTAssertEqual(seen, seen.sorted(), "one process's revisions increase")
        XCTAssertGreaterThan(seen[0], 0)
    }

    func testARemovedKeySetAgainGetsARevisionItNeverHad() throws {
        let store = try makeStore()
        let cache = try openCache(store)
        let first = try set(cache, "k")
        XCTAssertTrue(try cache.remove(EntryKey(group: "g", key: "k")))
        let second = try set(cache, "k")
        try store.commit()
        XCTAssertNotEqual(first, second)
    }

    func testTouchKeepsTheRevisionAndADiskReadFindsIt() throws {
        let store = try makeStore()
        let cache = try openCache(store)
        let revision = try set(cache, "k")
        _ = try cache.touch(EntryKey(group: "g", key: "k"))
        try store.commit()
        _ = try cache.clear(group: nil, tier: .memory)
        let found = try XCTUnwrap(cache.lookup("k"))
        XCTAssertEqual(found.tier, .disk)
        XCTAssertEqual(found.entry.revision, revision)
    }

    func testSetManyGivesEachEntryItsOwnRevision() throws {
        let store = try makeStore()
        let cache = try openCache(store)
        let writes = ["a", "b", "c"].map { Cache.Write(key: EntryKey(group: "g", key: $0), kind: .data, bytes: bytes($0), ttl: nil) }
        let revisions = try cache.set(writes)
        try store.commit()
        XCTAssertEqual(Set(revisions).count, 3)
        XCTAssertEqual(try ["a", "b", "c"].map { try cache.lookup($0)?.entry.revision }, revisions)
    }

    func testRevisionsOutliveTheProcessAndAreNotGivenAgainAfterReopening() throws {
        var store = try makeStore()
        var cache = try openCache(store)
        var given = Set<Int64>()
        for n in 0..<5 { given.insert(try set(cache, "k\(n)")) }
        try store.commit()
        store.close()
        store = try makeStore()
        cache = try openCache(store)
        XCTAssertEqual(try (0..<5).map { try cache.lookup("k\($0)")?.entry.revision }.compactMap { $0 }.count, 5)
        XCTAssertTrue(given.contains(try XCTUnwrap(cache.lookup("k0")?.entry.revision)))
        for n in 0..<5 { XCTAssertTrue(given.insert(try set(cache, "k\(n)")).inserted, "a revision given before was given again") }
        try store.commit()
    }

    /// Two stores on one directory are two processes: a block of revisions
    /// one reserved in a transaction it rolled back is the other's to take,
    /// and the first must not hand out numbers from it afterwards.
    func testABlockReservedByARolledBackTransactionIsNotUsedAgain() throws {
        try requireSQLite("two processes on one store directory")
        let first = try makeStore()
        let second = try makeStore()
        let mine = try openCache(first)
        try first.commit()
        let theirs = try openCache(second)
        try second.commit()
        _ = try set(mine, "rolled back")
        first.transactions.rollBack()
        let taken = try Set((0..<4).map { try set(theirs, "theirs\($0)") })
        try second.commit()
        let after = try set(mine, "mine")
        try first.commit()
        XCTAssertFalse(taken.contains(after), "revision \(after) was given by both processes")
    }

    /// The same for a savepoint: a memory-only cache made persistent, whose
    /// rows are written under one, and one of them refused.
    func testABlockReservedUnderASavepointRolledBackIsNotUsedAgain() throws {
        try requireSQLite("two processes on one store directory")
        let first = try makeStore()
        let second = try makeStore()
        let mine = try openCache(first) { $0.persistent = false }
        _ = try set(mine, "a")
        _ = try set(mine, "refused")
        try first.commit()
        let theirs = try openCache(second, "theirs")
        try second.commit()
        try first.database.execute("""
            CREATE TRIGGER refuse BEFORE INSERT ON entries WHEN NEW.key = 'refused' BEGIN SELECT RAISE(ABORT, 'refused'); END
            """)
        var persistent = CacheConfigChange()
        persistent.persistent = true
        XCTAssertThrowsError(try first.open("c", change: persistent))
        try first.commit()
        let taken = try Set((0..<4).map { try set(theirs, "theirs\($0)") })
        try second.commit()
        let other = try openCache(first, "other")
        let after = try set(other, "mine")
        try first.commit()
        XCTAssertFalse(taken.contains(after), "revision \(after) was given by both processes")
    }

    func testAMemoryOnlyCacheGivesRevisionsAndMadePersistentGetsTheStoresOwn() throws {
        let store = try makeStore()
        let cache = try openCache(store) { $0.persistent = false }
        let one = try set(cache, "k")
        let two = try set(cache, "k")
        XCTAssertNotEqual(one, two)
        XCTAssertEqual(try cache.lookup("k")?.entry.revision, two)
        _ = try store.open("c", change: { var c = CacheConfigChange(); c.persistent = true; return c }())
        try store.commit()
        _ = try cache.clear(group: nil, tier: .memory)
        let moved = try XCTUnwrap(cache.lookup("k")?.entry.revision)
        XCTAssertNotEqual(moved, two)
        XCTAssertNotEqual(try set(cache, "k"), moved)
    }
}
