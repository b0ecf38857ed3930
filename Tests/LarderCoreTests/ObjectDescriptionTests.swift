import XCTest
import LarderJSON
@testable import LarderCore

/// HMCache-style descriptions: `*Type`, `**Parent`, `(Category)field`.
final class ObjectDescriptionTests: ObjectStoreTestCase {
    override func prepare() throws {
        try store.register("Animal", "1", #"{"fields":{"name":"string","born":"date?","tags":{"array":"string"}}}"#)
        try store.register("Dog", "2.1", #"""
            {"parent":"Animal","fields":{"breed":"string","owner":{"optional":{"ref":"Person"}},
             "scores":{"map":"number"},"good":{"type":"bool","default":true}}}
            """#)
        try store.register("Person", "1", #"{"fields":{"name":"string","photo":"data?"}}"#)
        _ = try store.extend(type: "Dog", category: "Tricks", fields: FieldDefinition.list(from: json(#"{"trick":"string"}"#), at: "fields"))
    }

    private func describe(_ key: String) throws -> String {
        try ObjectDescription(store: store).describe(XCTUnwrap(cache.rawObject(key))).description
    }

    func testParentExtensionAndNestedType() throws {
        try cache.putObject("rex", "Dog", #"{"name":"Rex","tags":["loud"],"breed":"collie","owner":{"name":"Ada","photo":"AAEC"},"scores":{"agility":9.5},"trick":"roll over"}"#)
        XCTAssertEqual(try describe("rex"),
                       #"{"*Dog":{"breed":"collie","owner":{"*Person":{"name":"Ada","photo":"AAEC"}},"scores":{"agility":9.5},"good":true,"(Tricks)trick":"roll over","**Animal":{"name":"Rex","born":null,"tags":["loud"]}}}"#)
    }

    /// HMCache prints every property, an unset one as null (`"barObjectDate" : null`):
    /// absent and null fields alike, own, inherited and extension ones.
    func testAbsentAndNullFieldsAreNull() throws {
        try cache.putObject("d", "Dog", #"{"name":"D","tags":[],"breed":"b","scores":{},"born":null}"#)
        XCTAssertEqual(try describe("d"),
                       #"{"*Dog":{"breed":"b","owner":null,"scores":{},"good":true,"(Tricks)trick":null,"**Animal":{"name":"D","born":null,"tags":[]}}}"#)
        try cache.putObject("e", "Dog", #"{"name":"E","tags":[],"breed":"b","scores":{}}"#)
        XCTAssertEqual(try describe("e"),
                       #"{"*Dog":{"breed":"b","owner":null,"scores":{},"good":true,"(Tricks)trick":null,"**Animal":{"name":"E","born":null,"tags":[]}}}"#)
    }

    func testGrandparentsNest() throws {
        try store.register("Puppy", "1", #"{"parent":"Dog","fields":{"age":"integer"}}"#)
        try cache.putObject("p", "Puppy", #"{"name":"P","tags":[],"breed":"b","scores":{},"age":1,"trick":"sit"}"#)
        XCTAssertEqual(try describe("p"),
                       #"{"*Puppy":{"age":1,"**Dog":{"breed":"b","owner":null,"scores":{},"good":true,"(Tricks)trick":"sit","**Animal":{"name":"P","born":null,"tags":[]}}}}"#)
    }

    func testNestedObjectsInsideArraysAndMaps() throws {
        try store.register("Club", "1", #"{"fields":{"members":{"array":{"ref":"Person"}},"byRole":{"map":{"ref":"Person"}}}}"#)
        try cache.putObject("club", "Club", #"{"members":[{"name":"A"}],"byRole":{"chair":{"name":"B"}}}"#)
        XCTAssertEqual(try describe("club"),
                       #"{"*Club":{"members":[{"*Person":{"name":"A","photo":null}}],"byRole":{"chair":{"*Person":{"name":"B","photo":null}}}}}"#)
    }

    func testARemovedTypeIsDescribedByItsFields() throws {
        try cache.putObject("rex", "Dog", #"{"name":"Rex","tags":[],"breed":"collie","owner":{"name":"Ada"},"scores":{}}"#)
        _ = try store.removeSchema("Dog")
        XCTAssertEqual(try describe("rex"),
                       #"{"*Dog":{"name":"Rex","tags":[],"breed":"collie","owner":{"*Person":{"name":"Ada","photo":null}},"scores":{},"good":true}}"#)
    }

    func testAnOlderStoredVersionIsDescribedByItsOwnSchema() throws {
        try store.register("Person", "2", #"{"fields":{"name":"string","photo":"data?","nick":"string?"}}"#)
        // Stored at Person 2, then described; and an older stored Person 1 object is labelled by version 1.
        try cache.putObject("p2", "Person", #"{"name":"X","nick":"x"}"#)
        XCTAssertEqual(try describe("p2"), #"{"*Person":{"name":"X","photo":null,"nick":"x"}}"#)
        let old = StoredObject(type: "Person", version: ver("1"), value: ["name": "Y"])
        XCTAssertEqual(try ObjectDescription(store: store).describe(old).description, #"{"*Person":{"name":"Y","photo":null}}"#)
    }

    /// HMCache's `registerPropertyName:` without a category name: the field is
    /// printed under its own name, beside the named categories' `(Category)field`.
    func testAnUnnamedCategoryIsDescribedByTheFieldAlone() throws {
        _ = try store.extend(type: "Dog", category: "", fields: FieldDefinition.list(from: json(#"{"nickname":"string"}"#), at: "fields"))
        _ = try store.extend(type: "Dog", category: "", fields: FieldDefinition.list(from: json(#"{"mood":"string"}"#), at: "fields"))
        XCTAssertEqual(try store.newestSchema(of: "Dog")?.json["extensions"], json(#"{"Tricks":{"trick":"string"},"":{"nickname":"string","mood":"string"}}"#))
        try cache.putObject("d", "Dog", #"{"name":"D","tags":[],"breed":"b","scores":{},"nickname":"Dee","trick":"sit"}"#)
        XCTAssertEqual(try describe("d"),
                       #"{"*Dog":{"breed":"b","owner":null,"scores":{},"good":true,"(Tricks)trick":"sit","nickname":"Dee","mood":null,"**Animal":{"name":"D","born":null,"tags":[]}}}"#)
    }
}
