import XCTest
import LarderJSON
@testable import LarderCore
import LarderStorage

/// Two `Store`s on one directory, where the second looked at the store (as a
/// process does at the start of a burst) before the first created something:
/// creating it again in the same burst adopts or compares with what the first
/// made, and never fails or overwrites it.
final class StoreForeignCreationTests: StoreTestCase {
    private let ledger = #"{"model": "Ledger", "entities": [{"name": "Account", "attributes": {"id": "integer", "seq": "integer"}}]}"#

    func testRegisteringTheSameVersionAdoptsTheOtherProcesssRegistration() throws {
        let a = try makeStore()
        let b = try makeStore()
        XCTAssertEqual(try b.versions(of: "Tick").count, 0)
        XCTAssertTrue(try a.register("Tick", "1", #"{"fields": {"seq": "integer"}}"#))
        try a.commit()

        XCTAssertFalse(try b.register("Tick", "1", #"{"fields": {"seq": "integer"}}"#), "already registered by a")
        try b.commit()
    }

    func testRegisteringAnotherDefinitionOfTheVersionIsAConflict() throws {
        let a = try makeStore()
        let b = try makeStore()
        XCTAssertEqual(try b.versions(of: "Tick").count, 0)
        XCTAssertTrue(try a.register("Tick", "1", #"{"fields": {"seq": "integer"}}"#))
        try a.commit()

        XCTAssertThrowsError(try b.register("Tick", "1", #"{"fields": {"label": "string"}}"#)) {
            XCTAssertEqual($0 as? StoreError, .schemaConflict(type: "Tick", version: "1"))
        }
        try b.commit()
        try a.noticeForeignWrites()
        XCTAssertEqual(try a.newestSchema(of: "Tick")?.fields.map(\.name), ["seq"], "a's definition stays")
    }

    func testExtensionsOfBothProcessesAreKept() throws {
        let a = try makeStore()
        let b = try makeStore()
        XCTAssertTrue(try a.register("Tick", "1", #"{"fields": {"seq": "integer"}}"#))
        try a.commit()
        try b.noticeForeignWrites()
        XCTAssertEqual(try b.newestSchema(of: "Tick")?.extensions.count, 0)
        _ = try a.extend(type: "Tick", category: "A", fields: FieldDefinition.list(from: json(#"{"fromA": "string"}"#), at: "fields"))
        try a.commit()

        _ = try b.extend(type: "Tick", category: "B", fields: FieldDefinition.list(from: json(#"{"fromB": "string"}"#), at: "fields"))
        try b.commit()
        try a.noticeForeignWrites()
        XCTAssertEqual(try a.newestSchema(of: "Tick")?.extensions.map(\.category), ["A", "B"])
    }

    func testDefiningTheSameModelAdoptsTheOtherProcesssTables() throws {
        let a = try makeStore()
        let b = try makeStore()
        XCTAssertEqual(try b.entityModels().count, 0)
        XCTAssertTrue(try a.define(ledger).created)
        try a.upsert("Account", #"{"id": 1, "seq": 1}"#)
        try a.commit()

        let again = try b.define(ledger)
        XCTAssertFalse(again.created)
        XCTAssertEqual(again.newEntities, [])
        try b.upsert("Account", #"{"id": 2, "seq": 2}"#)
        try b.commit()
        XCTAssertEqual(try b.record("Account", id: .int(1))?["seq"], 1)
        try a.noticeForeignWrites()
        XCTAssertEqual(try a.record("Account", id: .int(2))?["seq"], 2)
    }

    func testOpeningACacheKeepsTheOtherProcesssNewSettings() throws {
        let a = try makeStore()
        let b = try makeStore()
        _ = try openCache(a)
        try a.commit()
        try b.noticeForeignWrites()
        XCTAssertEqual(try XCTUnwrap(b.cache(named: "c", create: false)).config.disk.maxCount, 0)
        _ = try openCache(a) { $0.diskMaxCount = 100 }
        try a.commit()

        let opened = try b.open("c", change: { var c = CacheConfigChange(); c.lifespan = 60_000; return c }())
        XCTAssertFalse(opened.created)
        XCTAssertEqual(opened.cache.config.disk.maxCount, 100, "a's change stays")
        XCTAssertEqual(opened.cache.config.lifespan, 60_000)
        try b.commit()
    }

    func testOpeningACacheTheOtherProcessDroppedCreatesItAgain() throws {
        let a = try makeStore()
        let b = try makeStore()
        _ = try openCache(a)
        try a.commit()
        try b.noticeForeignWrites()
        XCTAssertNotNil(try b.cache(named: "c", create: false))
        try a.drop("c")
        try a.commit()

        let opened = try b.open("c", change: { var c = CacheConfigChange(); c.lifespan = 60_000; return c }())
        XCTAssertTrue(opened.created)
        try opened.cache.put("k", "v")
        try b.commit()
        try a.noticeForeignWrites()
        XCTAssertEqual(try XCTUnwrap(a.cache(named: "c", create: false)).config.lifespan, 60_000)
        XCTAssertEqual(try XCTUnwrap(a.cache(named: "c", create: false)).text("k"), "v")
    }

    /// Taking the write lock catches up without asking SQLite when nobody else committed.
    func testTheWriteLockAsksDataVersionOnlyWhenTheWALIndexMoved() throws {
        try requireSQLite("counts the asks of SQLite's data_version")
        let a = try makeStore()
        let b = try makeStore()
        try openCache(a).put("k", "v")
        try a.commit()
        try b.noticeForeignWrites()
        let cb = try XCTUnwrap(b.cache(named: "c", create: false))
        XCTAssertEqual(try cb.text("k"), "v")
        let asked = b.dataVersionQueries
        try cb.put("own", "1")
        XCTAssertEqual(b.dataVersionQueries, asked, "nothing committed since the look: nothing asked")
        try b.commit()
    }
}
