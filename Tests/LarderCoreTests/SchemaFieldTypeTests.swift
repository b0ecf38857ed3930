import XCTest
import LarderJSON
@testable import LarderCore
import LarderStorage

final class SchemaFieldTypeTests: XCTestCase {
    private func parse(_ text: String, at path: String = "fields.f") throws -> FieldType {
        try FieldType(json: json(text), at: path)
    }

    func testEveryScalarName() throws {
        let expected: [String: FieldType] = [
            "string": .string, "integer": .integer, "number": .number, "bool": .bool,
            "date": .date, "data": .data, "json": .json,
        ]
        for (name, type) in expected {
            XCTAssertEqual(try parse("\"\(name)\""), type, name)
            XCTAssertEqual(type.json, .string(name))
            XCTAssertEqual(type.name, name)
            XCTAssertFalse(type.isOptional)
        }
    }

    func testQuestionMarkMakesAnyScalarOptional() throws {
        for name in ["string", "integer", "number", "bool", "date", "data", "json"] {
            let t = try parse("\"\(name)?\"")
            XCTAssertEqual(t, .optional(try parse("\"\(name)\"")), name)
            XCTAssertTrue(t.isOptional)
            XCTAssertEqual(t.json, json(#"{"optional":"\#(name)"}"#), "canonical form of \(name)?")
        }
    }

    func testOptionalObjectFormEqualsQuestionMark() throws {
        XCTAssertEqual(try parse(#"{"optional":"date"}"#), try parse(#""date?""#))
        XCTAssertEqual(try parse(#"{"optional":{"ref":"Person"}}"#), .optional(.ref("Person")))
        XCTAssertEqual(try parse(#"{"optional":{"array":"string"}}"#), .optional(.array(.string)))
        XCTAssertEqual(try parse(#"{"optional":"string?"}"#), .optional(.optional(.string)))
    }

    func testConstructors() throws {
        XCTAssertEqual(try parse(#"{"array":"integer"}"#), .array(.integer))
        XCTAssertEqual(try parse(#"{"map":"number"}"#), .map(.number))
        XCTAssertEqual(try parse(#"{"ref":"Person"}"#), .ref("Person"))
        XCTAssertEqual(try parse(#"{"array":"string?"}"#), .array(.optional(.string)))
        XCTAssertEqual(try parse(#"{"map":{"array":{"ref":"T"}}}"#), .map(.array(.ref("T"))))
        XCTAssertFalse(try parse(#"{"array":"string?"}"#).isOptional)
    }

    func testJSONRoundTripsThroughTheCanonicalForm() throws {
        for text in [#""string""#, #""integer?""#, #"{"array":{"optional":"bool"}}"#,
                     #"{"map":{"ref":"Dog"}}"#, #"{"optional":{"map":"data"}}"#] {
            let t = try parse(text)
            XCTAssertEqual(try FieldType(json: t.json, at: "x"), t, text)
        }
        XCTAssertEqual(FieldType.array(.integer).name, #"{"array":"integer"}"#)
        XCTAssertEqual(FieldType.optional(.ref("P")).name, #"{"optional":{"ref":"P"}}"#)
    }

    func testUnknownTypeNameIsRefusedAtThePath() {
        assertInvalidArgument(field: "fields.name") { _ = try self.parse(#""strnig""#, at: "fields.name") }
        assertInvalidArgument(field: "fields.name") { _ = try self.parse(#""strnig?""#, at: "fields.name") }
        assertInvalidArgument(field: "fields.name") { _ = try self.parse(#""String""#, at: "fields.name") }
        assertInvalidArgument(field: "fields.name") { _ = try self.parse(#""?""#, at: "fields.name") }
        assertInvalidArgument(field: "fields.name") { _ = try self.parse(#""""#, at: "fields.name") }
        do {
            _ = try parse(#""strnig""#, at: "fields.name")
        } catch let StoreError.invalidArgument(_, reason) {
            XCTAssertEqual(reason, #"unknown type "strnig" (string, integer, number, bool, date, data, json, or {array|map|ref|optional: …})"#)
        } catch {
            XCTFail("\(error)")
        }
    }

    func testNestedErrorsNameTheConstructorPath() {
        assertInvalidArgument(field: "fields.f.array") { _ = try self.parse(#"{"array":"nope"}"#) }
        assertInvalidArgument(field: "fields.f.array.map") { _ = try self.parse(#"{"array":{"map":"nope"}}"#) }
        assertInvalidArgument(field: "fields.f.optional") { _ = try self.parse(#"{"optional":"nope"}"#) }
        assertInvalidArgument(field: "fields.f.map.ref") { _ = try self.parse(#"{"map":{"ref":""}}"#) }
    }

    func testMalformedTypesAreRefused() {
        assertInvalidArgument(field: "fields.f.ref") { _ = try self.parse(#"{"ref":""}"#) }
        assertInvalidArgument(field: "fields.f.ref") { _ = try self.parse(#"{"ref":1}"#) }
        assertUnknownMember("fields.f.tuple", suggestion: nil) { _ = try self.parse(#"{"tuple":"string"}"#) }
        assertUnknownMember("fields.f.aray", suggestion: "array") { _ = try self.parse(#"{"aray":"string"}"#) }
        assertInvalidArgument(field: "fields.f") { _ = try self.parse(#"{"array":"string","map":"string"}"#) }
        assertInvalidArgument(field: "fields.f") { _ = try self.parse(#"{}"#) }
        assertInvalidArgument(field: "fields.f") { _ = try self.parse("1") }
        assertInvalidArgument(field: "fields.f") { _ = try self.parse("null") }
        assertInvalidArgument(field: "fields.f") { _ = try self.parse(#"["string"]"#) }
    }

    func testFieldDefinitionWithDefault() throws {
        let fields = try FieldDefinition.list(from: json(#"{"good":{"type":"bool","default":true},"n":{"type":"integer"},"s":"string?"}"#), at: "fields")
        XCTAssertEqual(fields.map(\.name), ["good", "n", "s"])
        XCTAssertEqual(fields[0].type, .bool)
        XCTAssertEqual(fields[0].defaultValue, true)
        XCTAssertTrue(fields[0].mayBeAbsent)
        XCTAssertEqual(fields[1].type, .integer)
        XCTAssertNil(fields[1].defaultValue)
        XCTAssertFalse(fields[1].mayBeAbsent)
        XCTAssertTrue(fields[2].mayBeAbsent)
        XCTAssertEqual(FieldDefinition.json(of: fields), json(#"{"good":{"type":"bool","default":true},"n":"integer","s":{"optional":"string"}}"#))
    }

    func testFieldDefinitionErrors() {
        assertUnknownMember("fields.a.dflt", suggestion: nil) { _ = try FieldDefinition.list(from: json(#"{"a":{"type":"bool","dflt":1}}"#), at: "fields") }
        assertUnknownMember("fields.a.defualt", suggestion: "default") { _ = try FieldDefinition.list(from: json(#"{"a":{"type":"bool","defualt":1}}"#), at: "fields") }
        assertInvalidArgument(field: "fields.a.type") { _ = try FieldDefinition.list(from: json(#"{"a":{"type":"boolean"}}"#), at: "fields") }
        assertInvalidArgument(field: "fields") { _ = try FieldDefinition.list(from: json(#"{"a.b":"string"}"#), at: "fields") }
        assertInvalidArgument(field: "fields") { _ = try FieldDefinition.list(from: json(#"{"":"string"}"#), at: "fields") }
        assertInvalidArgument(field: "fields") { _ = try FieldDefinition.list(from: json(#"["string"]"#), at: "fields") }
        XCTAssertEqual(try FieldDefinition.list(from: nil, at: "fields").count, 0)
    }
}
