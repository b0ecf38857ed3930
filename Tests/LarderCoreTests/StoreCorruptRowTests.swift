import XCTest
@testable import LarderCore
import LarderStorage

/// Rows of the store's own tables that no longer hold what Larder wrote
/// (edited by hand, damaged) are errors naming what they held, never read
/// as defaults; and a rule of Larder's own that breaks is an internal failure.
final class StoreCorruptRowTests: StoreTestCase {
    /// Runs `sql` on the store's database, then closes the store and opens it again.
    private func corrupt(_ store: Store, _ sql: String) throws -> Store {
        try store.database.execute(sql)
        store.close()
        return try makeStore()
    }

    private func assertCorrupt(_ item: StoreError.Corrupted, reason expected: String,
                               file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> Void) {
        do {
            try body()
            XCTFail("expected \(item) to be corrupt, nothing was thrown", file: file, line: line)
        } catch StoreError.corrupt(let found, let reason) {
            XCTAssertEqual(found, item, file: file, line: line)
            XCTAssertTrue(reason.hasPrefix(expected), "reason: \(reason)", file: file, line: line)
        } catch {
            XCTFail("expected \(item) to be corrupt, got \(error)", file: file, line: line)
        }
    }

    func testCacheSettingsThatAreNotWhatLarderWroteAreCorrupt() throws {
        let valid = #"{"persistent":true,"memory":{"maxCount":10,"maxBytes":100},"disk":{"maxCount":0,"maxBytes":0},"lifespan":1.5,"returnsExpired":false}"#
        let cases: [(config: String, reason: String)] = [
            ("not json", "not JSON"),
            ("[]", "expected an object, got array"),
            (#"{"persistent":true}"#, "memory is missing"),
            (valid.replacingOccurrences(of: #""maxCount":10"#, with: #""maxCount":"ten""#), #"memory.maxCount: expected a non-negative integer, got "ten""#),
            (valid.replacingOccurrences(of: #""maxBytes":0"#, with: #""maxBytes":-1"#), "disk.maxBytes: expected a non-negative integer, got -1"),
            (valid.replacingOccurrences(of: #""persistent":true"#, with: #""persistent":1"#), "persistent: expected boolean, got integer"),
            (valid.replacingOccurrences(of: "1.5", with: "null"), "lifespan: expected a non-negative number of seconds, got null"),
            (valid.replacingOccurrences(of: #""returnsExpired":false"#, with: #""returnsExpired":false,"colour":"red""#), #"unknown setting "colour""#),
            (valid.replacingOccurrences(of: #""maxBytes":100"#, with: #""maxBytes":100,"maxAge":1"#), #"unknown setting "memory.maxAge""#),
        ]
        var store = try makeStore()
        _ = try openCache(store)
        try store.commit()
        store = try corrupt(store, "UPDATE caches SET config = '\(valid)'")
        XCTAssertEqual(try store.cache(named: "c", create: false)?.config.lifespan, 1500, "the valid form reads back")
        for (config, reason) in cases {
            store = try corrupt(store, "UPDATE caches SET config = '\(config)'")
            assertCorrupt(.cacheSettings(cache: "c"), reason: reason) { _ = try store.cache(named: "c", create: false) }
        }
    }

    /// Settings another process changed are read again, as strictly.
    func testCacheSettingsCorruptedByAnotherProcessAreRefusedOnReload() throws {
        try requireSQLite("a write by any other connection is noticed through SQLite's data_version; on PostgreSQL, sidecars count their commits")
        let a = try makeStore()
        try openCache(a).put("k", "v")
        try a.commit()
        let b = try makeStore()
        try b.database.execute("UPDATE caches SET config = '{}' WHERE name = 'c'")
        try a.noticeForeignWrites()
        assertCorrupt(.cacheSettings(cache: "c"), reason: "persistent is missing") { _ = try a.cache(named: "c", create: false) }
    }

    func testAStoredSchemaThatIsNotWhatLarderWroteIsCorrupt() throws {
        let cases: [(definition: String, reason: String)] = [
            ("{", "not JSON"),
            (#"{"type":"Note","version":"1","fields":[]}"#, "fields: "),
            (#"{"type":"Other","version":"1","fields":{}}"#, #"it describes type "Other", version "1""#),
            (#"{"type":"Note","version":"1","fields":{"title":"colour"}}"#, "fields.title: "),
        ]
        var store = try makeStore()
        try store.register("Note", "1", #"{"fields": {"title": "string"}}"#)
        try store.commit()
        for (definition, reason) in cases {
            store = try corrupt(store, "UPDATE schemas SET definition = '\(definition)' WHERE type = 'Note'")
            assertCorrupt(.schema(type: "Note", version: "1"), reason: reason) { _ = try store.versions(of: "Note") }
        }
    }

    /// A nested object's description reads its type's schema as the top
    /// object's does: a stored schema that is not what Larder wrote is an
    /// error there too, not a description that quietly leaves the type out.
    func testDescribingANestedObjectOfACorruptSchemaIsCorrupt() throws {
        var store = try makeStore()
        try store.register("Person", "1", #"{"fields": {"name": "string"}}"#)
        try store.register("Dog", "1", #"{"fields": {"owner": {"ref": "Person"}}}"#)
        try openCache(store).putObject("rex", "Dog", #"{"owner": {"name": "Ada"}}"#)
        try store.commit()
        store = try corrupt(store, "UPDATE schemas SET definition = '{' WHERE type = 'Person'")
        let rex = try XCTUnwrap(openCache(store).rawObject("rex"))
        assertCorrupt(.schema(type: "Person", version: "1"), reason: "not JSON") { _ = try ObjectDescription(store: store).describe(rex) }
    }

    func testAStoredEntityModelThatIsNotWhatLarderWroteIsCorrupt() throws {
        let cases: [(definition: String, reason: String)] = [
            ("nope", "not JSON"),
            (#"{"model":"Bands","entities":[]}"#, "entities: "),
            (bandsModel().replacingOccurrences(of: #""model": "Bands""#, with: #""model": "Other""#), "it defines model Other"),
        ]
        var store = try makeStore()
        try store.define(bandsModel())
        try store.commit()
        for (definition, reason) in cases {
            store = try corrupt(store, "UPDATE entity_models SET definition = '\(definition)' WHERE name = 'Bands'")
            assertCorrupt(.entityModel("Bands"), reason: reason) { _ = try store.entityModels() }
        }
    }

    /// An insert that neither lands nor conflicts (a trigger drops it) breaks
    /// what creating a cache relies on: an internal failure, not SQLite's.
    func testABrokenInvariantIsAnInternalFailure() throws {
        try requireSQLite("breaks an invariant with a SQLite trigger")
        let store = try makeStore()
        try store.database.execute("CREATE TEMP TRIGGER vanish BEFORE INSERT ON caches BEGIN SELECT RAISE(IGNORE); END")
        XCTAssertThrowsError(try store.open("c", change: CacheConfigChange())) {
            XCTAssertEqual($0 as? StoreError, .internalFailure(#"creating cache "c" stored no settings (the insert returned no row)"#))
        }
    }
}
