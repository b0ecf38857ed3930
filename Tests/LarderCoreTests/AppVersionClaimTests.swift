import XCTest
@testable import LarderCore
import LarderStorage

/// Two app versions on one store at once (SPEC 6.9): a cache belongs to the
/// version whose process first used it last; a process it was taken from
/// reads it as empty and may not write to it. Each store here stands for a
/// process (a sidecar of its own on PostgreSQL).
final class AppVersionClaimTests: StoreTestCase {
    private func versioned(_ version: String) throws -> Store {
        let store = try makeStore()
        try store.declareAppVersion(version)
        try store.commit()
        return store
    }

    func testACacheAnotherVersionClaimedReadsAsEmptyAndRefusesWrites() throws {
        let old = try versioned("1.0")
        let mine = try openCache(old, "c")
        let kept = try openCache(old, "kept") { $0.persistsAcrossVersions = true }
        try mine.put("k", "1.0")
        try kept.put("k", "1.0")
        try old.commit()

        let new = try versioned("2.0")
        let theirs = try XCTUnwrap(try new.cache(named: "c", create: false))
        XCTAssertNil(try theirs.text("k"), "2.0's first use wiped 1.0's data")
        try theirs.put("k", "2.0")
        try XCTUnwrap(try new.cache(named: "kept", create: false)).put("n", "2.0")
        try new.commit()

        try old.noticeForeignWrites()
        XCTAssertNil(try mine.text("k"), "2.0's data is never served to 1.0")
        XCTAssertFalse(try mine.contains("k"))
        XCTAssertEqual(try mine.allKeys(), [])
        XCTAssertEqual(try mine.groups(prefix: "", after: nil, limit: 10), [])
        let superseded = StoreError.appVersionSuperseded(cache: "c", appVersion: "1.0", cacheAppVersion: "2.0")
        XCTAssertThrowsError(try mine.put("k", "1.0 late")) { XCTAssertEqual($0 as? StoreError, superseded) }
        XCTAssertThrowsError(try mine.touch(EntryKey(group: "g", key: "k"))) { XCTAssertEqual($0 as? StoreError, superseded) }
        XCTAssertThrowsError(try old.drop("c")) { XCTAssertEqual($0 as? StoreError, superseded) }
        XCTAssertEqual(try old.clear(.all, includingStores: false).map(\.cache), ["kept"], "store.clear leaves 2.0's cache alone")
        try old.commit()

        try new.noticeForeignWrites()
        XCTAssertEqual(try theirs.text("k"), "2.0")
    }

    func testAClaimRolledBackIsMadeAgainAtTheNextUse() throws {
        let old = try versioned("1.0")
        try openCache(old, "c").put("k", "1.0")
        try old.commit()

        let new = try versioned("2.0")
        XCTAssertNil(try XCTUnwrap(try new.cache(named: "c", create: false)).text("k"))
        try refuseCommits(new, true)
        XCTAssertThrowsError(try new.commit())
        try refuseCommits(new, false)

        // The claim went with the commit: the next use claims the cache again, rather than take 1.0 for a later claim.
        let again = try XCTUnwrap(try new.cache(named: "c", create: false))
        XCTAssertNil(try again.text("k"))
        try again.put("k", "2.0")
        try new.commit()
        XCTAssertEqual(try again.text("k"), "2.0")
    }
}
