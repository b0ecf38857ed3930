import XCTest
import LarderJSON
@testable import LarderCore

/// A migration that cannot run, or whose result does not validate, changes nothing;
/// a later fix (a newer version with a working migration) goes through.
final class MigrationFailureTests: ObjectStoreTestCase {
    private var original: [UInt8]!
    override func prepare() throws {
        try store.register("Log", "1", #"{"fields":{"line":"string","level":"integer"}}"#)
        original = try cache.putObject("l1", "Log", #"{"line":"boot","level":2}"#).json.encoded
    }

    private func assertUntouched(file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(try cache.rawBytes("l1"), original, file: file, line: line)
        let raw = try XCTUnwrap(cache.rawObject("l1"), file: file, line: line)
        XCTAssertEqual(raw.version.text, "1", file: file, line: line)
        XCTAssertEqual(raw.plainValue, json(#"{"line":"boot","level":2}"#), file: file, line: line)
    }

    func testAMissingMigrationIsReportedAndNothingIsLost() throws {
        try store.register("Log", "2", #"{"fields":{"line":"string","level":"string"}}"#)
        assertStoreError(.migrationMissing(type: "Log", from: "1", to: "2", fields: ["level (integer → string)"])) {
            _ = try self.cache.readObject("l1")
        }
        try assertUntouched()
        // Also without writing back.
        assertStoreError(.migrationMissing(type: "Log", from: "1", to: "2", fields: ["level (integer → string)"])) {
            _ = try self.cache.readObject("l1", writeBack: false)
        }
        try assertUntouched()
    }

    func testAFailedMigrationLeavesTheStoredBytesAndIsTriedAgain() throws {
        try store.register("Log", "2", #"{"fields":{"line":"string","level":"string"}}"#)
        try store.register("Log", "3", #"{"fields":{"line":"string","level":"string"},"migrations":[{"from":"1","steps":[{"op":"remove","field":"level"}]}]}"#)
        for _ in 0..<2 {
            let failed = assertMigrationFailed { _ = try self.cache.readObject("l1") }
            XCTAssertEqual(failed?.key, "l1")
            XCTAssertEqual(failed?.type, "Log")
            XCTAssertEqual(failed?.from, "1")
            XCTAssertEqual(failed?.to, "3")
            XCTAssertEqual(failed?.reason, "the migrated value does not validate: value.level: missing required field of type string")
            try assertUntouched()
        }
        // A plain get shows the old version.
        let lookup = try XCTUnwrap(cache.get(EntryKey(group: "g", key: "l1")))
        XCTAssertEqual(lookup.entry.kind, .object)
        XCTAssertEqual(StoredObject(json(String(decoding: lookup.entry.bytes, as: UTF8.self)))?.version.text, "1")
    }

    func testAFailedMigrationSurvivesAReopenUnchanged() throws {
        try store.register("Log", "2", #"{"fields":{"line":"string","level":"string"},"migrations":[{"from":"1","steps":[{"op":"convert","field":"line","to":"integer"}]}]}"#)
        _ = assertMigrationFailed { _ = try self.cache.readObject("l1") }
        store.close()
        store = try makeStore()
        cache = try XCTUnwrap(store.cache(named: "c", create: false))
        try assertUntouched()
    }

    func testALaterVersionWithAWorkingMigrationFixesIt() throws {
        try store.register("Log", "2", #"{"fields":{"line":"string","level":"string"}}"#)
        try store.register("Log", "3", #"{"fields":{"line":"string","level":"string"},"migrations":[{"from":"1","steps":[{"op":"remove","field":"level"}]}]}"#)
        _ = assertMigrationFailed { _ = try self.cache.readObject("l1") }

        try store.register("Log", "4", #"{"fields":{"line":"string","level":"string"},"migrations":[{"from":"1","steps":[{"op":"convert","field":"level","to":"string"}]}]}"#)
        let read = try cache.readObject("l1")
        XCTAssertEqual(read.migratedFrom?.text, "1")
        let migrated = try XCTUnwrap(read.migratedObject)
        XCTAssertEqual(migrated.version.text, "4")
        XCTAssertEqual(migrated.plainValue, json(#"{"line":"boot","level":"2"}"#))
        // Written back: the next read is current, and the stored bytes are the new object.
        XCTAssertEqual(try cache.rawBytes("l1"), migrated.json.encoded)
        XCTAssertEqual(try cache.readObject("l1").currentObject?.json, migrated.json)
    }

    func testObjectsWrittenAtTheNewestVersionAreNotAffected() throws {
        try store.register("Log", "2", #"{"fields":{"line":"string","level":"string"}}"#)
        try cache.putObject("l2", "Log", #"{"line":"x","level":"y"}"#)
        XCTAssertEqual(try cache.readObject("l2").currentObject?.plainValue, json(#"{"line":"x","level":"y"}"#))
        assertStoreError(.migrationMissing(type: "Log", from: "1", to: "2", fields: ["level (integer → string)"])) {
            _ = try self.cache.readObject("l1")
        }
    }

    func testReadingSomethingThatIsNotAnObject() throws {
        try cache.put("plain", "1", kind: .json)
        assertStoreError(.notAnObject(key: "plain")) { _ = try self.cache.readObject("plain") }
        // Object-kind bytes that are not a tagged object are refused the same way.
        try cache.put("odd", #"{"x":1}"#, kind: .object)
        assertStoreError(.notAnObject(key: "odd")) { _ = try self.cache.readObject("odd") }
        XCTAssertTrue(try cache.readObject("nobody").isNotFound)
    }
}
