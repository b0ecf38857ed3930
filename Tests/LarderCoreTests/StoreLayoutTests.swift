import Foundation
import XCTest
@testable import LarderCore
import LarderStorage
import LarderSQLite

/// The store's layout on SQLite: a new store takes every step and records
/// it; a store written before steps were recorded (the layout 7 fixture) is
/// recorded as having them all, with nothing run; a newer store is refused
/// and left as it is. (PostgreSQL's: `PostgreSQLStoreLayoutTests`; stores
/// of older layouts upgrading: `LargeValueInPlaceTests`, `EncryptionTests`,
/// `ExpiredDataTests`.)
final class StoreLayoutTests: StoreTestCase {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/stores/sqlite-layout-7/larder.db").path

    private var file: String { directory.path + "/" + Store.databaseFileName }

    private func steps(_ db: SQLiteDatabase) throws -> [String] {
        try db.recordedSteps().sorted()
    }

    /// Every table and index, as SQLite keeps its definition, but those whose names contain `leavingOut`.
    private func definitions(_ db: SQLiteDatabase, leavingOut part: String) throws -> [String] {
        let s = try db.statement("SELECT type || ' ' || name || ': ' || COALESCE(sql, '') FROM sqlite_schema ORDER BY type, name")
        defer { s.reset() }
        var all: [String] = []
        while try s.step() { all.append(try s.string(0)) }
        return all.filter { !$0.split(separator: ":")[0].contains(part) }
    }

    func testStepNamesAreUnique() {
        XCTAssertEqual(Set(StoreLayout.steps.map(\.name)).count, StoreLayout.steps.count)
    }

    func testANewStoreTakesAndRecordsEveryStep() throws {
        try requireSQLite("a store file's layout")
        _ = try makeStore()
        let db = try SQLiteDatabase(path: file)
        XCTAssertEqual(try steps(db), StoreLayout.steps.map(\.name).sorted())
        XCTAssertEqual(try db.layoutCounter(), StoreLayout.stepsRecorded(.sqlite))
        XCTAssertFalse(try StoreLayout.bringUpToDate(db), "nothing left to do")
    }

    func testAStoreOfLayout7IsRecordedAsHavingItsStepsAndTakesOnlyTheLaterOnes() throws {
        try requireSQLite("a store file's layout")
        try FileManager.default.copyItem(atPath: Self.fixture, toPath: file)
        let db = try SQLiteDatabase(path: file)
        XCTAssertEqual(try db.layoutCounter(), 7)
        // What the steps after counter 7 make: the leases' tables, the entries again with their revisions.
        func laterStepsLeftOut(_ definitions: [String]) -> [String] {
            definitions.filter {
                !$0.hasPrefix("table entries:") && !$0.hasPrefix("table entry_revisions:") && !$0.split(separator: ":")[0].contains("locks")
                    && !$0.split(separator: ":")[0].contains("fetch_leases")
            }
        }
        let before = laterStepsLeftOut(try definitions(db, leavingOut: "layout_steps"))
        XCTAssertTrue(try StoreLayout.bringUpToDate(db))
        XCTAssertEqual(try steps(db), StoreLayout.steps.map(\.name).sorted())
        XCTAssertEqual(try db.layoutCounter(), StoreLayout.stepsRecorded(.sqlite))
        // Only the steps that no counter had (recorded by name only) ran: leases, revisions and fetch leases.
        XCTAssertEqual(laterStepsLeftOut(try definitions(db, leavingOut: "layout_steps")), before, "no step the counter had ran")
        XCTAssertEqual(try db.integer("SELECT COUNT(*) FROM entries WHERE revision <> id"), 0, "an entry written before revisions has its row's number")
        XCTAssertEqual(try db.integer("SELECT next FROM entry_revisions"), try db.integer("SELECT MAX(id) FROM entries") + 1)

        // Laid out as a new store is, its entities' tables apart.
        let fresh = try SQLiteDatabase(path: ":memory:")
        try StoreLayout.bringUpToDate(fresh)
        XCTAssertEqual(try definitions(db, leavingOut: "entity."), try definitions(fresh, leavingOut: "entity."))
        db.close()

        // And the store reads: a cache's entries, objects (the end-to-end
        // fixture test reads the rest, as the release that wrote it did).
        let store = try makeStore()
        XCTAssertEqual(try store.cache(named: "drafts", create: false)?.allKeys(group: ""), ["d1"])
    }

    /// The benchmark's storage floor makes its tables with the script: in
    /// one transaction, as it does, the same tables as a new store's.
    func testTheScriptLaysOutWhatANewStoreHas() throws {
        try requireSQLite("a store file's layout")
        let floor = try SQLiteDatabase(path: ":memory:")
        try floor.execute("BEGIN; " + StoreLayout.script(for: .sqlite) + " COMMIT;")
        let fresh = try SQLiteDatabase(path: ":memory:")
        try StoreLayout.bringUpToDate(fresh)
        XCTAssertEqual(try definitions(floor, leavingOut: "layout_steps"), try definitions(fresh, leavingOut: "layout_steps"))
    }

    func testALayoutFromANewerLarderIsRefusedAndLeftAlone() throws {
        try requireSQLite("a store file's layout")
        try makeStore().close()
        let db = try SQLiteDatabase(path: file)
        let newer = StoreLayout.stepsRecorded(.sqlite) + 1
        try db.setLayoutCounter(newer)
        assertRefusedAsNewer(db, saying: "layout \(newer)")
        XCTAssertEqual(try db.layoutCounter(), newer, "nothing was changed")

        try db.setLayoutCounter(newer - 1)
        try db.execute("INSERT INTO layout_steps VALUES ('versions')")
        assertRefusedAsNewer(db, saying: "'versions'")
        XCTAssertEqual(try db.recordedSteps().count, StoreLayout.steps.count + 1, "nothing was changed")
        db.close()
        XCTAssertThrowsError(try Store(directory: directory.path), "and so is the store")
    }

    private func assertRefusedAsNewer(_ db: SQLiteDatabase, saying what: String, line: UInt = #line) {
        let error = assertThrowsStoreError("a newer layout", line: line) { () throws(StoreError) in
            try StoreLayout.bringUpToDate(db)
        }
        guard case .unavailable(_, let reason) = error else {
            return XCTFail("expected unavailable, got \(String(describing: error))", line: line)
        }
        XCTAssertTrue(reason.contains("newer Larder") && reason.contains(what), reason, line: line)
    }
}
