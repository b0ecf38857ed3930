import XCTest
@testable import LarderCore

/// When a commit fails (a full disk, an I/O error), nothing written since the
/// last commit may be served afterwards: not from disk, and not from memory.
final class StoreFailedCommitTests: StoreTestCase {
    func testAFailedCommitLeavesNoTraceInEitherTier() throws {
        let store = try makeStore()
        let cache = try openCache(store)
        try cache.put("kept", "committed before")
        try store.commit()
        try cache.put("lost", "never committed")
        try cache.put("kept", "overwritten, never committed")
        XCTAssertEqual(try cache.text("lost"), "never committed", "served from the open transaction")
        store.database.refuseCommits(true)
        XCTAssertThrowsError(try store.commit())
        store.database.refuseCommits(false)
        let reloaded = try XCTUnwrap(store.cache(named: "c", create: false))
        XCTAssertNil(try reloaded.text("lost"))
        XCTAssertEqual(try reloaded.text("kept"), "committed before")
        XCTAssertEqual(reloaded.count, 1, "totals reloaded from disk")
    }
}
