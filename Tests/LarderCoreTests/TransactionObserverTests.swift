import XCTest
@testable import LarderCore
import LarderStorage

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

    func testCachesLoadedOrDroppedRegisterNoObserverOfTheirOwn() throws {
        let store = try makeStore()
        let storeWide = store.transactions.observerCount
        for i in 0..<1000 { try openCache(store, "c\(i)").put("k", "v") }
        try store.commit()
        XCTAssertEqual(store.transactions.observerCount, storeWide, "a commit tells the store-wide observers, not every cache loaded")
        for i in 0..<1000 { try store.drop("c\(i)") }
        try store.commit()
        XCTAssertEqual(store.transactions.observerCount, storeWide)
        XCTAssertTrue(store.caches.loaded.byName.isEmpty && store.caches.loaded.byID.isEmpty, "dropped caches leave nothing behind")
    }

    func testARollbackReachesEveryCacheThatChangedInTheFailedTransaction() throws {
        let store = try makeStore()
        let recorder = Recorder()
        store.transactions.observe(recorder)
        let caches = try (0..<100).map { i throws -> Cache in try openCache(store, "c\(i)") }
        let memoryOnly = try openCache(store, "m") { $0.persistent = false }
        for c in caches + [memoryOnly] { try c.put("k", "v") }
        try store.commit()

        recorder.failWillCommit = true
        try caches[7].put("k", "changed")
        try caches[42].put("new", "unacknowledged")
        _ = try store.open("m", change: { var c = CacheConfigChange(); c.lifespan = 5000; return c }())
        let created = try openCache(store, "created in the failed transaction")
        try created.put("k", "v")
        XCTAssertThrowsError(try store.commit())

        XCTAssertEqual(try caches[7].text("k"), "v", "the overwrite is not served from memory")
        XCTAssertNil(try caches[42].text("new"))
        XCTAssertEqual(caches[42].count, 1, "its totals followed the rollback")
        XCTAssertEqual(try store.cache(named: "m", create: false)?.config.lifespan, 0, "the settings change was rolled back")
        XCTAssertNil(try store.cache(named: "created in the failed transaction", create: false))
        for c in caches { XCTAssertEqual(try c.text("k"), "v") }
        XCTAssertEqual(try memoryOnly.text("k"), "v", "a memory-only cache's entries are its own, not the store's")
    }

    func testACacheWhoseCreationWasRolledBackIsNotTakenForTheNextOneCreated() throws {
        let store = try makeStore()
        try refuseCommits(store, true)
        let rolledBack = try openCache(store, "rolled back")
        try rolledBack.put("k", "v")
        XCTAssertThrowsError(try store.commit())
        try refuseCommits(store, false)
        try openCache(store, "next").put("k", "next's")
        try store.commit()
        XCTAssertNil(try store.cache(named: "rolled back", create: false), "the next cache may have its id, not its name")
        XCTAssertThrowsError(try rolledBack.text("k"))
    }

    func testAnotherWritersCommitToOneCacheLeavesTheOthersAsTheyAre() throws {
        guard TestEngine.isPostgreSQL else { throw XCTSkip("SQLite tells other processes only that something changed") }
        let store = try makeStore()
        let caches = try (0..<100).map { i throws -> Cache in try openCache(store, "c\(i)") }
        for c in caches { try c.put("k", "v") }
        try store.commit()
        let other = try makeStore()
        try XCTUnwrap(other.cache(named: "c3", create: false)).put("k", "from another sidecar")
        try other.commit()
        try store.noticeForeignWrites()
        XCTAssertEqual(try caches[3].text("k"), "from another sidecar")
        for (i, c) in caches.enumerated() where i != 3 {
            XCTAssertEqual(c.memoryCount, 1, "cache c\(i) keeps its memory tier")
            XCTAssertEqual(try c.lookup("k")?.tier, .memory)
        }
    }
}
