import XCTest
import LarderJSON
@testable import LarderCore

/// A child type and its ancestors keep their own versions; an object migrates at every level.
final class MigrationInheritanceTests: ObjectStoreTestCase {
    override func prepare() throws {
        try store.register("Shape", "1", #"{"fields":{"colour":"string"}}"#)
        try store.register("Circle", "1", #"{"parent":"Shape","fields":{"r":"number"}}"#)
    }

    func testParentVersionsAreRecorded() throws {
        let stored = try cache.putObject("c", "Circle", #"{"colour":"red","r":2}"#)
        XCTAssertEqual(stored.parents.map(\.type), ["Shape"])
        XCTAssertEqual(stored.parents.map(\.version.text), ["1"])
        let raw = json(String(decoding: try XCTUnwrap(cache.rawBytes("c")), as: UTF8.self))
        XCTAssertEqual(raw["$parents"], json(#"{"Shape":"1"}"#))
        XCTAssertEqual(raw["$type"], "Circle")
        XCTAssertEqual(raw["$version"], "1")
        // A type without a parent records none.
        XCTAssertNil(json(try cache.putObject("s", "Shape", #"{"colour":"blue"}"#).json.description)["$parents"])
    }

    func testParentAndChildMigrationsBothApply() throws {
        try cache.putObject("c", "Circle", #"{"colour":"red","r":2}"#)
        try store.register("Shape", "2", #"{"fields":{"color":"string"},"migrations":[{"from":"1","steps":[{"op":"rename","from":"colour","to":"color"}]}]}"#)
        try store.register("Circle", "2", #"{"parent":"Shape","fields":{"radius":"number"},"migrations":[{"from":"1","steps":[{"op":"rename","from":"r","to":"radius"}]}]}"#)
        let read = try cache.readObject("c")
        XCTAssertEqual(read.migratedFrom?.text, "1")
        let migrated = try XCTUnwrap(read.migratedObject)
        XCTAssertEqual(migrated.version.text, "2")
        XCTAssertEqual(migrated.parents.map(\.version.text), ["2"])
        XCTAssertEqual(migrated.plainValue, json(#"{"color":"red","radius":2}"#))
        XCTAssertEqual(try cache.readObject("c").currentObject?.json, migrated.json)
    }

    func testOnlyTheParentChanging() throws {
        try cache.putObject("c", "Circle", #"{"colour":"red","r":2}"#)
        try store.register("Shape", "2", #"{"fields":{"colour":"string","opacity":{"type":"number","default":1}}}"#)
        let read = try cache.readObject("c")
        XCTAssertEqual(read.migratedFrom?.text, "1", "the child's own version")
        let migrated = try XCTUnwrap(read.migratedObject)
        XCTAssertEqual(migrated.version.text, "1")
        XCTAssertEqual(migrated.parents.map(\.version.text), ["2"])
        XCTAssertEqual(migrated.plainValue, json(#"{"colour":"red","opacity":1,"r":2}"#))
    }

    func testOnlyTheChildChanging() throws {
        try cache.putObject("c", "Circle", #"{"colour":"red","r":2}"#)
        try store.register("Circle", "2", #"{"parent":"Shape","fields":{"r":"string"},"migrations":[{"from":"1","steps":[{"op":"convert","field":"r","to":"string"}]}]}"#)
        let migrated = try XCTUnwrap(cache.readObject("c").migratedObject)
        XCTAssertEqual(migrated.plainValue, json(#"{"colour":"red","r":"2"}"#))
        XCTAssertEqual(migrated.parents.map(\.version.text), ["1"])
    }

    func testThreeLevelsMigrateRootFirst() throws {
        try store.register("Ellipse", "1", #"{"parent":"Shape","fields":{"rx":"number"}}"#)
        try store.register("Oval", "1", #"{"parent":"Ellipse","fields":{"tag":"string"}}"#)
        let stored = try cache.putObject("o", "Oval", #"{"colour":"red","rx":1,"tag":"t"}"#)
        XCTAssertEqual(stored.parents.map(\.type), ["Ellipse", "Shape"], "nearest parent first")
        XCTAssertEqual(stored.value.keys, ["colour", "rx", "tag"], "root ancestor's fields first")

        // Each level renames; Ellipse's step relies on Shape's having run first.
        try store.register("Shape", "2", #"{"fields":{"color":"string"},"migrations":[{"from":"1","steps":[{"op":"rename","from":"colour","to":"color"}]}]}"#)
        try store.register("Ellipse", "2", #"{"parent":"Shape","fields":{"rx":"number","shade":"string"},"migrations":[{"from":"1","steps":[{"op":"set","field":"shade","value":"x"},{"op":"move","from":"color","to":"shade"}]}]}"#)
        try store.register("Shape", "3", #"{"fields":{"color":"string?"},"migrations":[{"from":"2","steps":[]}]}"#)
        try store.register("Oval", "2", #"{"parent":"Ellipse","fields":{"label":"string"},"migrations":[{"from":"1","steps":[{"op":"rename","from":"tag","to":"label"}]}]}"#)
        let migrated = try XCTUnwrap(cache.readObject("o").migratedObject)
        XCTAssertEqual(migrated.plainValue, json(#"{"shade":"red","rx":1,"label":"t"}"#))
        XCTAssertEqual(migrated.parents.map(\.type), ["Ellipse", "Shape"])
        XCTAssertEqual(migrated.parents.map(\.version.text), ["2", "3"])
    }

    func testAParentMigrationGapFailsTheRead() throws {
        let original = try cache.putObject("c", "Circle", #"{"colour":"red","r":2}"#).json.encoded
        try store.register("Shape", "2", #"{"fields":{"colour":"integer"}}"#)
        assertStoreError(.migrationMissing(type: "Shape", from: "1", to: "2", fields: ["colour (string → integer)"])) {
            _ = try self.cache.readObject("c")
        }
        XCTAssertEqual(try cache.rawBytes("c"), original)
    }
}
