import XCTest
import LarderJSON
@testable import LarderCore

/// `TypeSchema`: reading a `schema.register` definition, and refusing bad ones.
final class SchemaDefinitionTests: XCTestCase {
    func testReadsFieldsParentExtensionsAndMigrations() throws {
        let s = try typeSchema("Dog", "2.1", #"""
            {"fields":{"breed":"string","good":{"type":"bool","default":true}},
             "parent":"Animal",
             "extensions":{"Tricks":{"trick":"string"}},
             "migrations":[{"from":["1","2"],"steps":[{"op":"rename","from":"kind","to":"breed"}]},
                           {"from":"2.0.5","steps":[]}]}
            """#)
        XCTAssertEqual(s.type, "Dog")
        XCTAssertEqual(s.version, ver("2.1"))
        XCTAssertEqual(s.fields.map(\.name), ["breed", "good"])
        XCTAssertEqual(s.parent, "Animal")
        XCTAssertEqual(s.extensions.map(\.category), ["Tricks"])
        XCTAssertEqual(s.extensions[0].fields.map(\.name), ["trick"])
        XCTAssertEqual(s.migrations.count, 2)
        XCTAssertEqual(s.migrations[0].from, [ver("1"), ver("2")])
        XCTAssertEqual(s.migrations[0].steps, [.rename(from: "kind", to: "breed")])
        XCTAssertEqual(s.migrations[1].from, [ver("2.0.5")])
        // Extension fields are optional whatever they were declared as.
        XCTAssertEqual(s.ownFields.map(\.name), ["breed", "good", "trick"])
        XCTAssertEqual(s.ownFields[2].type, .optional(.string))
        XCTAssertEqual(s.category(of: "trick"), "Tricks")
        XCTAssertNil(s.category(of: "breed"))
    }

    func testJSONRoundTrips() throws {
        let s = try typeSchema("Dog", "2.1", #"""
            {"fields":{"breed":"string?","tags":{"array":"string"}},"parent":"Animal",
             "extensions":{"Tricks":{"trick":"string"}},
             "migrations":[{"from":"1","steps":[{"op":"convert","field":"t","to":"date","from":"epochMillis"},{"op":"callback"}]}]}
            """#)
        let again = try TypeSchema(type: "Dog", version: "2.1", definition: s.json)
        XCTAssertEqual(again, s)
        XCTAssertEqual(again.json.description, s.json.description)
        XCTAssertEqual(s.json["version"], "2.1")
        XCTAssertEqual(s.json["fields"], json(#"{"breed":{"optional":"string"},"tags":{"array":"string"}}"#))
        XCTAssertEqual(s.json["migrations"], json(#"[{"from":["1"],"steps":[{"op":"convert","field":"t","to":"date","from":"epochMillis"},{"op":"callback"}]}]"#))
    }

    func testMinimalDefinitionHasNoOptionalParts() throws {
        let s = try typeSchema("T", "1", #"{"fields":{}}"#)
        XCTAssertTrue(s.fields.isEmpty)
        XCTAssertNil(s.parent)
        XCTAssertTrue(s.extensions.isEmpty)
        XCTAssertTrue(s.migrations.isEmpty)
        XCTAssertEqual(s.json, json(#"{"type":"T","version":"1","fields":{}}"#))
        XCTAssertNil(try typeSchema("T", "1", #"{"fields":{},"parent":null,"extensions":null,"migrations":null}"#).parent)
    }

    func testTypeAndVersionMustBeValid() {
        assertInvalidArgument(field: "type") { _ = try typeSchema("", "1", #"{"fields":{}}"#) }
        assertInvalidArgument(field: "version") { _ = try typeSchema("T", "x.1", #"{"fields":{}}"#) }
        assertInvalidArgument(field: "version") { _ = try typeSchema("T", "", #"{"fields":{}}"#) }
    }

    func testDuplicateFieldsAreRefused() {
        assertInvalidArgument(field: "fields") { _ = try typeSchema("T", "1", #"{"fields":{"a":"string","a":"integer"}}"#) }
        // A field and an extension field of the same name clash too.
        assertInvalidArgument(field: "fields") {
            _ = try typeSchema("T", "1", #"{"fields":{"a":"string"},"extensions":{"C":{"a":"string"}}}"#)
        }
        // And extension fields of two categories.
        assertInvalidArgument(field: "fields") {
            _ = try typeSchema("T", "1", #"{"fields":{},"extensions":{"C":{"x":"string"},"D":{"x":"integer"}}}"#)
        }
    }

    func testMigrationsMustComeFromOlderVersions() {
        assertInvalidArgument(field: "migrations") {
            _ = try typeSchema("T", "2", #"{"fields":{},"migrations":[{"from":"3","steps":[]}]}"#)
        }
        assertInvalidArgument(field: "migrations") {
            _ = try typeSchema("T", "2", #"{"fields":{},"migrations":[{"from":"2","steps":[]}]}"#)
        }
        // 2.0 is the same version as 2.
        assertInvalidArgument(field: "migrations") {
            _ = try typeSchema("T", "2", #"{"fields":{},"migrations":[{"from":["1","2.0"],"steps":[]}]}"#)
        }
        XCTAssertNoThrow(try typeSchema("T", "2", #"{"fields":{},"migrations":[{"from":["1","1.9.9"],"steps":[]}]}"#))
    }

    func testBadParentsAreRefused() {
        assertInvalidArgument(field: "parent") { _ = try typeSchema("T", "1", #"{"fields":{},"parent":""}"#) }
        assertInvalidArgument(field: "parent") { _ = try typeSchema("T", "1", #"{"fields":{},"parent":"T"}"#) }
        assertInvalidArgument(field: "parent") { _ = try typeSchema("T", "1", #"{"fields":{},"parent":3}"#) }
        assertInvalidArgument(field: "parent") { _ = try typeSchema("T", "1", #"{"fields":{},"parent":["A"]}"#) }
    }

    func testMalformedPartsNameWhereTheyAre() {
        assertInvalidArgument(field: "fields") { _ = try typeSchema("T", "1", #"{"fields":"string"}"#) }
        assertInvalidArgument(field: "fields.a") { _ = try typeSchema("T", "1", #"{"fields":{"a":"text"}}"#) }
        assertInvalidArgument(field: "extensions") { _ = try typeSchema("T", "1", #"{"fields":{},"extensions":[]}"#) }
        assertInvalidArgument(field: "extensions.C.x") { _ = try typeSchema("T", "1", #"{"fields":{},"extensions":{"C":{"x":"nope"}}}"#) }
        assertInvalidArgument(field: "migrations") { _ = try typeSchema("T", "2", #"{"fields":{},"migrations":{}}"#) }
        assertInvalidArgument(field: "migrations[0]") { _ = try typeSchema("T", "2", #"{"fields":{},"migrations":["1"]}"#) }
        assertInvalidArgument(field: "migrations[0].from") { _ = try typeSchema("T", "2", #"{"fields":{},"migrations":[{"steps":[]}]}"#) }
        assertInvalidArgument(field: "migrations[0].from") { _ = try typeSchema("T", "2", #"{"fields":{},"migrations":[{"from":"x","steps":[]}]}"#) }
        assertInvalidArgument(field: "migrations[0].from") { _ = try typeSchema("T", "2", #"{"fields":{},"migrations":[{"from":[],"steps":[]}]}"#) }
        assertInvalidArgument(field: "migrations[1].from[1]") {
            _ = try typeSchema("T", "2", #"{"fields":{},"migrations":[{"from":"1","steps":[]},{"from":["1",1],"steps":[]}]}"#)
        }
        assertInvalidArgument(field: "migrations[0].steps") { _ = try typeSchema("T", "2", #"{"fields":{},"migrations":[{"from":"1"}]}"#) }
    }

    func testStepsAreCheckedOneByOne() {
        func step(_ text: String) throws {
            _ = try typeSchema("T", "2", #"{"fields":{},"migrations":[{"from":"1","steps":[{"op":"remove","field":"ok"},\#(text)]}]}"#)
        }
        let prefix = "migrations[0].steps[1]"
        assertInvalidArgument(field: prefix) { try step(#""rename""#) }
        assertInvalidArgument(field: prefix) { try step(#"{"field":"a"}"#) }
        assertInvalidArgument(field: prefix + ".op") { try step(#"{"op":"frobnicate"}"#) }
        assertInvalidArgument(field: prefix + ".to") { try step(#"{"op":"rename","from":"a"}"#) }
        assertInvalidArgument(field: prefix + ".from") { try step(#"{"op":"rename","from":"","to":"b"}"#) }
        assertInvalidArgument(field: prefix + ".field") { try step(#"{"op":"remove"}"#) }
        assertInvalidArgument(field: prefix + ".value") { try step(#"{"op":"set","field":"a"}"#) }
        assertInvalidArgument(field: prefix + ".value") { try step(#"{"op":"default","field":"a"}"#) }
        assertInvalidArgument(field: prefix + ".to") { try step(#"{"op":"convert","field":"a"}"#) }
        assertInvalidArgument(field: prefix + ".to") { try step(#"{"op":"convert","field":"a","to":"float"}"#) }
        assertInvalidArgument(field: prefix + ".from") { try step(#"{"op":"convert","field":"a","to":"date","from":"minutes"}"#) }
        assertInvalidArgument(field: prefix + ".field") { try step(#"{"op":"convert","to":"date"}"#) }
        assertInvalidArgument(field: prefix + ".to") { try step(#"{"op":"move","from":"a.b"}"#) }
        XCTAssertNoThrow(try step(#"{"op":"set","field":"a","value":null}"#))
        XCTAssertNoThrow(try step(#"{"op":"callback"}"#))
    }

    func testEveryStepParses() throws {
        let s = try typeSchema("T", "2", #"""
            {"fields":{},"migrations":[{"from":"1","steps":[
              {"op":"rename","from":"a","to":"b"},
              {"op":"remove","field":"c"},
              {"op":"set","field":"d","value":[1]},
              {"op":"default","field":"e","value":"x"},
              {"op":"convert","field":"f","to":"integer"},
              {"op":"convert","field":"g","to":"date","from":"epochMillis"},
              {"op":"move","from":"h.i","to":"j"},
              {"op":"callback"}]}]}
            """#)
        XCTAssertEqual(s.migrations[0].steps, [
            .rename(from: "a", to: "b"),
            .remove(field: "c"),
            .set(field: "d", value: [1]),
            .default(field: "e", value: "x"),
            .convert(field: "f", to: .integer, from: nil),
            .convert(field: "g", to: .date, from: .epochMillis),
            .move(from: "h.i", to: "j"),
            .callback,
        ])
    }
}
