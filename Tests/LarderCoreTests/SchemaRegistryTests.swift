import XCTest
import LarderJSON
@testable import LarderCore

/// Registering, persisting, extending and removing schemas in a store.
final class SchemaRegistryTests: StoreTestCase {
    private let person = #"{"fields":{"name":"string","photo":"data?"}}"#

    func testRegisterIsIdempotentForTheSameDefinition() throws {
        let store = try makeStore()
        XCTAssertTrue(try store.register("Person", "1", person))
        XCTAssertFalse(try store.register("Person", "1", person))
        XCTAssertEqual(try store.versionTexts(of: "Person"), ["1"])
    }

    func testADifferentDefinitionUnderTheSameVersionIsAConflict() throws {
        let store = try makeStore()
        try store.register("Person", "1", person)
        assertStoreError(.schemaConflict(type: "Person", version: "1")) {
            try store.register("Person", "1", #"{"fields":{"name":"string"}}"#)
        }
        // 1.0 is the same version as 1.
        assertStoreError(.schemaConflict(type: "Person", version: "1.0")) {
            try store.register("Person", "1.0", #"{"fields":{"name":"string"}}"#)
        }
        assertStoreError(.schemaConflict(type: "Person", version: "1")) {
            try store.register("Person", "1", #"{"fields":{"name":"string","photo":"data?"},"parent":"Thing"}"#)
        }
        // Nothing changed.
        XCTAssertEqual(try store.newestSchema(of: "Person"), try typeSchema("Person", "1", person))
    }

    func testVersionsComeBackOldestFirstInNumericOrder() throws {
        let store = try makeStore()
        for version in ["10", "2", "1.0.10", "1.0.2"] {
            try store.register("T", version, #"{"fields":{"v\#(version.replacingOccurrences(of: ".", with: "_"))":"string"}}"#)
        }
        XCTAssertEqual(try store.versionTexts(of: "T"), ["1.0.2", "1.0.10", "2", "10"])
        XCTAssertEqual(try store.newestSchema(of: "T")?.version.text, "10")
        XCTAssertEqual(try store.schema(of: "T", version: ver("2.0"))?.fields.map(\.name), ["v2"])
        XCTAssertNil(try store.schema(of: "T", version: ver("3")))
        XCTAssertEqual(try store.versions(of: "Nobody").count, 0)
        XCTAssertNil(try store.newestSchema(of: "Nobody"))
    }

    func testSchemaTypesAreSortedAndDistinct() throws {
        let store = try makeStore()
        try store.register("b", "1", #"{"fields":{}}"#)
        try store.register("B", "1", #"{"fields":{}}"#)
        try store.register("a", "1", #"{"fields":{}}"#)
        try store.register("a", "2", #"{"fields":{"x":"string?"}}"#)
        XCTAssertEqual(try store.schemaTypes(), ["B", "a", "b"])
    }

    func testVersionsSurviveCloseAndReopen() throws {
        let store = try makeStore()
        try store.register("Person", "1", person)
        try store.register("Person", "2", #"{"fields":{"name":"string"},"migrations":[{"from":"1","steps":[{"op":"remove","field":"photo"}]}]}"#)
        try store.register("Dog", "2.1", #"{"fields":{"breed":"string"},"parent":"Animal"}"#)
        _ = try store.extend(type: "Dog", category: "Tricks", fields: FieldDefinition.list(from: json(#"{"trick":"string"}"#), at: "fields"))
        let before = try store.versions(of: "Person") + store.versions(of: "Dog")
        store.close()

        let reopened = try makeStore()
        XCTAssertEqual(try reopened.versionTexts(of: "Person"), ["1", "2"])
        XCTAssertEqual(try reopened.versions(of: "Person") + reopened.versions(of: "Dog"), before)
        XCTAssertEqual(try reopened.newestSchema(of: "Person")?.migrations.first?.steps, [.remove(field: "photo")])
        let dog = try XCTUnwrap(reopened.newestSchema(of: "Dog"))
        XCTAssertEqual(dog.parent, "Animal")
        XCTAssertEqual(dog.extensions.map(\.category), ["Tricks"])
        XCTAssertEqual(try reopened.schemaTypes(), ["Dog", "Person"])
        // The same definition is still recognised after the reopen.
        XCTAssertFalse(try reopened.register("Person", "1", person))
    }

    func testExtendAddsOptionalCategoryFieldsToTheNewestVersionOnly() throws {
        let store = try makeStore()
        try store.register("T", "1", #"{"fields":{"a":"string"}}"#)
        try store.register("T", "2", #"{"fields":{"a":"string","b":"integer?"}}"#)
        let extended = try store.extend(type: "T", category: "Extra", fields: FieldDefinition.list(from: json(#"{"x":"integer","y":"string"}"#), at: "fields"))
        XCTAssertEqual(extended.version.text, "2")
        XCTAssertEqual(extended.extensions.count, 1)
        XCTAssertEqual(extended.extensions[0].category, "Extra")
        XCTAssertEqual(extended.extensions[0].fields.map(\.name), ["x", "y"])
        // Stored as declared; optional when used.
        XCTAssertEqual(extended.extensions[0].fields[0].type, .integer)
        XCTAssertEqual(extended.ownFields.map(\.type), [.string, .optional(.integer), .optional(.integer), .optional(.string)])
        XCTAssertEqual(try store.newestSchema(of: "T"), extended)
        XCTAssertTrue(try XCTUnwrap(store.schema(of: "T", version: ver("1"))).extensions.isEmpty)
        XCTAssertEqual(try store.versionTexts(of: "T"), ["1", "2"], "no version bump")

        // The same category again adds to it; another category is kept apart.
        _ = try store.extend(type: "T", category: "Extra", fields: FieldDefinition.list(from: json(#"{"z":"bool"}"#), at: "fields"))
        let twice = try store.extend(type: "T", category: "Other", fields: FieldDefinition.list(from: json(#"{"w":"date"}"#), at: "fields"))
        XCTAssertEqual(twice.extensions.map(\.category), ["Extra", "Other"])
        XCTAssertEqual(twice.extensions[0].fields.map(\.name), ["x", "y", "z"])
        XCTAssertEqual(twice.json["extensions"], json(#"{"Extra":{"x":"integer","y":"string","z":"bool"},"Other":{"w":"date"}}"#))

        // Objects may leave extension fields out, or set them.
        let cache = try openCache(store)
        XCTAssertEqual(try cache.putObject("plain", "T", #"{"a":"1"}"#).plainValue, json(#"{"a":"1"}"#))
        XCTAssertEqual(try cache.putObject("full", "T", #"{"a":"1","x":2,"z":true,"w":"2026-01-01T00:00:00Z"}"#).plainValue,
                       json(#"{"a":"1","x":2,"z":true,"w":"2026-01-01T00:00:00Z"}"#))
        assertInvalidObject(path: "value.x", reason: "expected integer, got string") {
            try cache.putObject("bad", "T", #"{"a":"1","x":"two"}"#)
        }
    }

    func testExtendRefusesClashes() throws {
        let store = try makeStore()
        try store.register("T", "1", #"{"fields":{"a":"string"}}"#)
        _ = try store.extend(type: "T", category: "C", fields: FieldDefinition.list(from: json(#"{"x":"string"}"#), at: "fields"))
        let before = try store.newestSchema(of: "T")
        assertInvalidArgument(field: "fields.a") {
            _ = try store.extend(type: "T", category: "D", fields: FieldDefinition.list(from: json(#"{"ok":"string","a":"string"}"#), at: "fields"))
        }
        assertInvalidArgument(field: "fields.x") {
            _ = try store.extend(type: "T", category: "D", fields: FieldDefinition.list(from: json(#"{"x":"integer"}"#), at: "fields"))
        }
        assertInvalidArgument(field: "fields.x") {
            _ = try store.extend(type: "T", category: "C", fields: FieldDefinition.list(from: json(#"{"x":"string"}"#), at: "fields"))
        }
        XCTAssertEqual(try store.newestSchema(of: "T"), before, "a refused extension changes nothing")
        XCTAssertEqual(try store.newestSchema(of: "T")?.extensions.first?.fields.map(\.name), ["x"])
        assertStoreError(.schemaNotFound("Nope")) {
            _ = try store.extend(type: "Nope", category: "C", fields: [])
        }
    }

    func testAnExtendedVersionNoLongerMatchesItsOriginalDefinition() throws {
        let store = try makeStore()
        try store.register("T", "1", #"{"fields":{"a":"string"}}"#)
        _ = try store.extend(type: "T", category: "C", fields: FieldDefinition.list(from: json(#"{"x":"string"}"#), at: "fields"))
        assertStoreError(.schemaConflict(type: "T", version: "1")) { try store.register("T", "1", #"{"fields":{"a":"string"}}"#) }
        XCTAssertFalse(try store.register("T", "1", #"{"fields":{"a":"string"},"extensions":{"C":{"x":"string"}}}"#))
    }

    func testRemoveSchemaDeletesEveryVersionAndKeepsObjects() throws {
        let store = try makeStore()
        try store.register("T", "1", #"{"fields":{"a":"string"}}"#)
        try store.register("T", "2", #"{"fields":{"a":"string","b":"string?"}}"#)
        try store.register("U", "1", #"{"fields":{}}"#)
        let cache = try openCache(store)
        try cache.putObject("k", "T", #"{"a":"x","b":"y"}"#)

        XCTAssertEqual(try store.removeSchema("T"), 2)
        XCTAssertEqual(try store.versions(of: "T").count, 0)
        XCTAssertEqual(try store.schemaTypes(), ["U"])
        assertStoreError(.schemaNotFound("T")) { _ = try store.removeSchema("T") }
        assertStoreError(.schemaNotFound("Never")) { _ = try store.removeSchema("Never") }

        guard case .untyped(let type, let version, let value) = try cache.readObject("k") else {
            return XCTFail("expected an untyped read")
        }
        XCTAssertEqual(type, "T")
        XCTAssertEqual(version, "2")
        XCTAssertEqual(value, json(#"{"a":"x","b":"y"}"#))
        assertStoreError(.schemaNotFound("T")) { try cache.putObject("k2", "T", #"{"a":"x"}"#) }

        // The removal is persistent, and the type can be registered afresh.
        store.close()
        let reopened = try makeStore()
        XCTAssertEqual(try reopened.schemaTypes(), ["U"])
        XCTAssertTrue(try reopened.register("T", "1", #"{"fields":{"other":"integer"}}"#))
    }

    func testMissingOrCyclicParentsAreFoundWhenUsed() throws {
        let store = try makeStore()
        let cache = try openCache(store)
        try store.register("Child", "1", #"{"fields":{"c":"string"},"parent":"Base"}"#)
        assertStoreError(.schemaNotFound("Base")) { try cache.putObject("k", "Child", #"{"c":"x"}"#) }

        try store.register("A", "1", #"{"fields":{},"parent":"B"}"#)
        try store.register("B", "1", #"{"fields":{},"parent":"A"}"#)
        assertInvalidArgument(field: "parent") { try cache.putObject("k", "A", "{}") }
    }
}
