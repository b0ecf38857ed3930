import LarderJSON
import XCTest

/// The validator the contract tests rely on refuses what it should: a schema
/// check that passes everything would prove nothing.
final class JSONSchemaValidatorTests: XCTestCase {
    private let document: JSON = [
        "components": [
            "schemas": [
                "Count": ["type": "integer", "minimum": 0],
                "Stored": [
                    "type": "object",
                    "required": ["stored", "size"],
                    "additionalProperties": false,
                    "properties": ["stored": ["const": true], "size": ["$ref": "#/components/schemas/Count"]],
                ],
                "Open": ["type": "object", "required": ["found"], "properties": ["found": ["type": "boolean"]]],
            ],
        ],
    ]
    private let stored: JSON = ["$ref": "#/components/schemas/Stored"]

    private func problems(_ value: JSON, _ schema: JSON, closedObjects: Bool = false, patterns: Bool = false) -> [String] {
        JSONSchemaValidator(document: document, closedObjects: closedObjects, acceptsTranscriptPatterns: patterns)
            .problems(value, against: schema)
    }

    func testAValidValuePasses() {
        XCTAssertEqual(problems(["stored": true, "size": 49], stored), [])
        XCTAssertEqual(problems(["stored": true, "size": 4.0], stored), [], "an integer may be written with a fraction")
    }

    func testAWrongTypeFails() {
        XCTAssertEqual(problems(["stored": true, "size": "49"], stored), ["$.size: expected integer, got string"])
        XCTAssertEqual(problems(["stored": true, "size": 4.5], stored), ["$.size: expected integer, got number"])
        XCTAssertEqual(problems([1], stored), ["$: expected object, got array"])
        XCTAssertEqual(problems(nil, ["type": ["string", "integer"]]), ["$: expected string or integer, got null"])
    }

    func testAMissingRequiredMemberFails() {
        XCTAssertEqual(problems(["stored": true], stored), [#"$: missing required member "size""#])
    }

    func testAnUnexpectedMemberFailsWhereAdditionalPropertiesIsFalse() {
        XCTAssertEqual(problems(["stored": true, "size": 1, "sise": 1], stored), [#"$: unexpected member "sise""#])
        XCTAssertEqual(problems(["found": true, "valid": true], ["$ref": "#/components/schemas/Open"]), [])
    }

    func testClosedObjectsRefuseUndocumentedMembers() {
        let open: JSON = ["$ref": "#/components/schemas/Open"]
        XCTAssertEqual(problems(["found": true, "valid": true], open, closedObjects: true), [#"$: unexpected member "valid""#])
        XCTAssertEqual(problems(["found": true], open, closedObjects: true), [])
        XCTAssertEqual(problems(["any": 1], ["type": "object"], closedObjects: true), [], "an object schema without properties stays open")
    }

    func testBoundsConstAndEnum() {
        XCTAssertEqual(problems(["stored": false, "size": -1], stored), [
            "$.stored: expected true, got false",
            "$.size: -1 breaks minimum 0",
        ])
        XCTAssertEqual(problems("disk", ["enum": ["memory", "disk"]]), [])
        XCTAssertEqual(problems("tape", ["enum": ["memory", "disk"]]), [#"$: "tape" is not one of ["memory","disk"]"#])
        XCTAssertEqual(problems("", ["type": "string", "minLength": 1]), ["$: string of length 0 breaks minLength 1"])
        XCTAssertEqual(problems("5afbd6c51a3127f2", ["pattern": "^[0-9a-f]{16}$"]), [])
        XCTAssertEqual(problems("5AFBD6C51A3127F2", ["pattern": "^[0-9a-f]{16}$"]).count, 1)
    }

    func testOneOfNeedsExactlyOneBranch() {
        let schema: JSON = ["oneOf": [["type": "integer"], ["type": "number"]]]
        XCTAssertEqual(problems(1.5, schema), [])
        XCTAssertEqual(problems(1, schema), ["$: matches 2 branches of oneOf, not exactly one"])
        XCTAssertEqual(problems("1", schema).count, 1)
        XCTAssertEqual(problems("1", ["anyOf": [["type": "integer"], ["type": "string"]]]), [])
        XCTAssertEqual(problems(1, ["not": ["type": "integer"]]).count, 1)
    }

    func testArraysAreCheckedElementByElement() {
        let schema: JSON = ["type": "array", "items": ["$ref": "#/components/schemas/Count"], "minItems": 1]
        XCTAssertEqual(problems([1, 2], schema), [])
        XCTAssertEqual(problems([1, -2, "3"], schema), ["$[1]: -2 breaks minimum 0", "$[2]: expected integer, got string"])
        XCTAssertEqual(problems([], schema), ["$: 0 elements break minItems 1"])
    }

    /// A schema it cannot read is a failure, never a pass.
    func testUnresolvableReferencesAndUnknownKeywordsAreProblems() {
        XCTAssertEqual(problems(1, ["$ref": "#/components/schemas/Nowhere"]), [##"$: cannot resolve $ref "#/components/schemas/Nowhere""##])
        XCTAssertEqual(problems(1, ["$ref": "https://example.com/schema.json"]).count, 1)
        XCTAssertEqual(problems(1, ["type": "integer", "multipleOf": 2]), [#"$: unsupported schema keyword "multipleOf""#])
        XCTAssertEqual(problems(1, ["type": "integer", "description": "passed over"]), [])
    }

    func testTranscriptPatternsStandForWhatTheyMatch() {
        XCTAssertEqual(problems(["stored": true, "size": "{...}"], stored, patterns: true), [])
        XCTAssertEqual(problems("{...}", stored, patterns: true), [])
        XCTAssertEqual(problems("Invalid params: [..]", ["const": "Invalid params: missing key"], patterns: true), [])
        XCTAssertEqual(problems(["stored": true, "size": "[..]"], stored, patterns: true), ["$.size: expected integer, got string"])
        XCTAssertEqual(problems(["stored": true, "size": "{...}"], stored).count, 1, "only where patterns are accepted")
    }
}
