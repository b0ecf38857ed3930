import XCTest
@testable import LarderCore

/// The transaction engine tells each registered observer what became of the
/// transaction; the store's own state (memory tiers, definitions, recency,
/// staged batches) is kept right through the same calls.
final class TransactionObserverTests: StoreTestCase {
    private final class Recorder: TransactionObserver {
        var calls: [String] = []
        var failWillCommit = false
        func transactionWillCommit() throws(StoreError) {
            calls.append("will")
            if failWillCommit { throw .storage(code: 13, message: "no room for the last writes") }
        }
        func transactionDidCommit() { calls.append("commit") }
        func transactionDidRollBack() { calls.append("rollback") }
        func storeChanged(elsewhere changes: ChangeRecord) { calls.append(changes.everything ? "elsewhere" : "entries elsewhere") }
    }

    func testObserversHearCommitsRollbacksAndOtherProcesses() throws {
        let store = try makeStore()
        let recorder = Recorder()
        store.transactions.observe(recorder)
        let cache = try openCache(store)
        try cache.put("k", "v")
        try store.commit()
        XCTAssertEqual(recorder.calls, ["will", "commit"])

        recorder.calls = []
        recorder.failWillCommit = true
        try cache.put("k", "changed")
        XCTAssertThrowsError(try store.commit())
        XCTAssertEqual(recorder.calls, ["will", "rollback"])
        XCTAssertEqual(try cache.text("k"), "v", "the cache followed the rollback: the unacknowledged value is not served")

        recorder.calls = []
        recorder.failWillCommit = false
        let other = try makeStore()
        try openCache(other).put("k", "from another process")
        try other.commit()
        try store.noticeForeignWrites()
        // On PostgreSQL the other writer says it changed one entry; SQLite, only that something changed.
        XCTAssertEqual(recorder.calls, [TestEngine.isPostgreSQL ? "entries elsewhere" : "elsewhere"])
        XCTAssertEqual(try cache.text("k"), "from another process")
    }

    func testAnObserverThatStopsIsNoLongerTold() throws {
        let store = try makeStore()
        let recorder = Recorder()
        store.transactions.observe(recorder)
        store.transactions.stopObserving(recorder)
        try openCache(store).put("k", "v")
        try store.commit()
        XCTAssertEqual(recorder.calls, [])
    }

    func testADroppedCacheIsNoLongerTold() throws {
        let store = try makeStore()
        let cache = try openCache(store, "gone")
        try cache.put("k", "v")
        try store.commit()
        try store.drop("gone")
        try store.commit()
        cache.isStale = false
        store.transactions.rollBack()
        XCTAssertFalse(cache.isStale, "a dropped cache no longer follows the store's transactions")
    }
}
