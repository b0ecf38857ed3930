import XCTest
@testable import LarderCore
import LarderStorage

/// When a commit fails (a full disk, an I/O error), nothing written since the
/// last commit may be served afterwards: not from disk, and not from memory.
/// The same holds when any statement in the transaction fails, since SQLite
/// may then have undone the statement or the whole transaction.
final class StoreFailedCommitTests: StoreTestCase {
    /// SQLite's result codes for the failures injected.
    static let ioError: Int32 = 10   // SQLITE_IOERR
    static let diskFull: Int32 = 13  // SQLITE_FULL

    func testAFailedCommitLeavesNoTraceInEitherTier() throws {
        let store = try makeStore()
        let cache = try openCache(store)
        try cache.put("kept", "committed before")
        try store.commit()
        try cache.put("lost", "never committed")
        try cache.put("kept", "overwritten, never committed")
        XCTAssertEqual(try cache.text("lost"), "never committed", "served from the open transaction")
        try refuseCommits(store, true)
        XCTAssertThrowsError(try store.commit())
        try refuseCommits(store, false)
        let reloaded = try XCTUnwrap(store.cache(named: "c", create: false))
        XCTAssertNil(try reloaded.text("lost"))
        XCTAssertEqual(try reloaded.text("kept"), "committed before")
        XCTAssertEqual(reloaded.count, 1, "totals reloaded from disk")
    }

    // Faults are injected in debug builds only (the hook is not in release builds).
    #if DEBUG
    /// Recency noted by reads is written at the commit; when that fails, the
    /// commit fails like any other, and the next one does not carry the
    /// failed transaction's writes to disk.
    func testAFailedRecencyWriteFailsTheCommitAndTheNextCommitStartsAfresh() throws {
        try requireSQLite("injects a SQLite error code")
        let store = try makeStore()
        // A disk limit makes reads record recency.
        let cache = try openCache(store) { $0.diskMaxCount = 100 }
        try cache.put("kept", "committed before")
        try store.commit()
        XCTAssertEqual(try cache.text("kept"), "committed before")
        try cache.put("lost", "never committed")
        store.sqlite!.injectFault(Self.ioError, sqlPrefix: "UPDATE entries SET used")
        XCTAssertThrowsError(try store.commit()) { XCTAssertEqual(($0 as? StoreError)?.sqliteCode, Self.ioError) }
        XCTAssertFalse(store.hasPendingWrites, "rolled back")
        XCTAssertNil(try cache.text("lost"))
        try cache.put("next", "committed after")
        try store.commit()
        store.close()

        let reopened = try XCTUnwrap(makeStore().cache(named: "c", create: false))
        XCTAssertEqual(try reopened.text("kept"), "committed before")
        XCTAssertNil(try reopened.text("lost"))
        XCTAssertEqual(try reopened.text("next"), "committed after")
    }

    /// A statement that fails dooms its transaction: what came before it and
    /// after it is rolled back at the commit, which throws the first error.
    func testAFailedStatementDoomsItsTransaction() throws {
        try failedStatement(rollsBack: false)
    }

    /// SQLite itself may roll the transaction back after a full disk or an
    /// I/O error; writes made after that, in a transaction of their own, go
    /// with it too, for their callers are told the same failure.
    func testWritesAfterATransactionSQLiteRolledBackAreRolledBackToo() throws {
        try failedStatement(rollsBack: true)
    }

    private func failedStatement(rollsBack: Bool) throws {
        try requireSQLite("injects a SQLite error code")
        let store = try makeStore()
        let cache = try openCache(store)
        try cache.put("kept", "committed before")
        try store.commit()
        try cache.put("before", "in the doomed transaction")
        store.sqlite!.injectFault(Self.diskFull, nth: 2, sqlPrefix: "INSERT INTO entries", rollsBack: rollsBack)
        try cache.put("first", "the fault falls on the second insert")
        XCTAssertThrowsError(try cache.put("failed", "never written")) {
            XCTAssertEqual(($0 as? StoreError)?.sqliteCode, Self.diskFull)
        }
        XCTAssertTrue(store.transactionFailed)
        try cache.put("after", "joins a transaction that can only be rolled back")
        XCTAssertThrowsError(try store.commit()) { XCTAssertEqual(($0 as? StoreError)?.sqliteCode, Self.diskFull) }
        XCTAssertFalse(store.transactionFailed)
        XCTAssertFalse(store.hasPendingWrites)
        for key in ["before", "first", "failed", "after"] { XCTAssertNil(try cache.text(key), key) }
        XCTAssertEqual(cache.count, 1, "totals reloaded from disk")

        try cache.put("next", "committed after")
        try store.commit()
        store.close()
        let reopened = try XCTUnwrap(makeStore().cache(named: "c", create: false))
        XCTAssertEqual(try reopened.allKeys(), ["kept", "next"])
    }

    /// The fault falls on the nth matching statement only, once, and not at all once removed.
    func testAnInjectedFaultFallsOnceOnTheStatementItNames() throws {
        try requireSQLite("injects a SQLite error code")
        let store = try makeStore()
        let cache = try openCache(store)
        store.sqlite!.injectFault(Self.ioError, sqlPrefix: "DELETE FROM entries")
        try cache.put("a", "1")
        try store.commit()
        XCTAssertThrowsError(try cache.clear(group: nil, tier: .all))
        XCTAssertThrowsError(try store.commit())
        XCTAssertEqual(try cache.clear(group: nil, tier: .all), 1, "once")
        try store.commit()

        store.sqlite!.injectFault(Self.ioError)
        store.sqlite!.removeFault()
        try cache.put("b", "2")
        try store.commit()
        XCTAssertEqual(try cache.text("b"), "2")
    }
    #endif

    /// Clearing and dropping write in the transaction like every other write,
    /// even as its first: a failed commit brings the entries and the cache back.
    func testAFailedCommitTakesBackAClearAndADrop() throws {
        let store = try makeStore()
        let cache = try openCache(store)
        try cache.put("a", "1")
        try openCache(store, "other").put("b", "2")
        try store.commit()
        XCTAssertEqual(try cache.clear(group: nil, tier: .all), 1)
        try store.drop("other")
        try refuseCommits(store, true)
        XCTAssertThrowsError(try store.commit())
        try refuseCommits(store, false)
        XCTAssertEqual(try cache.text("a"), "1")
        XCTAssertEqual(try store.cache(named: "other", create: false)?.text("b"), "2")
        store.close()
        let reopened = try makeStore()
        XCTAssertEqual(try reopened.cache(named: "c", create: false)?.text("a"), "1")
        XCTAssertEqual(try reopened.cache(named: "other", create: false)?.text("b"), "2")
    }

    /// A memory-only cache's settings are a row too: one created in a failed
    /// transaction is gone with it, entries included.
    func testAMemoryOnlyCacheCreatedInAFailedTransactionIsGone() throws {
        let store = try makeStore()
        let cache = try openCache(store, "scratch") { $0.persistent = false }
        try cache.put("k", "v")
        try refuseCommits(store, true)
        XCTAssertThrowsError(try store.commit())
        try refuseCommits(store, false)
        XCTAssertNil(try store.cache(named: "scratch", create: false))
        XCTAssertThrowsError(try cache.text("k")) { XCTAssertEqual($0 as? StoreError, .cacheNotFound("scratch")) }
    }
}

extension StoreError {
    /// SQLite's code, for a storage failure.
    var sqliteCode: Int32? {
        if case .storage(let code, _) = self { return code }
        return nil
    }
}
