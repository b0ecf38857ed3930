import XCTest
import LarderJSON
@testable import LarderCore

/// `ObjectValidator` through `putObject`: errors name the exact path and what was expected.
final class ObjectValidationTests: ObjectStoreTestCase {
    override func prepare() throws {
        try store.register("Animal", "1", #"{"fields":{"name":"string","born":"date?","tags":{"array":"string"}}}"#)
        try store.register("Dog", "2.1", #"""
            {"parent":"Animal","fields":{"breed":"string","owner":{"optional":{"ref":"Person"}},
             "scores":{"map":"number"},"good":{"type":"bool","default":true}}}
            """#)
        try store.register("Person", "1", #"{"fields":{"name":"string","photo":"data?","friends":{"array":{"ref":"Person"}}, "pets":{"map":{"ref":"Pet"}}}}"#)
        try store.register("Pet", "1", #"{"fields":{"name":"string","age":"integer"}}"#)
        try store.register("Kinds", "1", #"""
            {"fields":{"s":"string?","i":"integer?","n":"number?","b":"bool?","d":"date?","bin":"data?","j":"json?",
                       "grid":{"optional":{"array":{"array":"integer"}}}}}
            """#)
    }

    private func put(_ type: String, _ value: String) throws {
        try cache.putObject("k", type, value)
    }

    private let rex = #"{"name":"Rex","tags":["loud"],"breed":"collie","owner":{"name":"Ada","photo":"AAEC","friends":[],"pets":{}},"scores":{"agility":9.5}}"#

    func testAValidObjectIsTaggedWithDefaultsFilled() throws {
        let stored = try cache.putObject("rex", "Dog", rex)
        XCTAssertEqual(stored.type, "Dog")
        XCTAssertEqual(stored.version.text, "2.1")
        XCTAssertEqual(stored.parents.map(\.type), ["Animal"])
        XCTAssertEqual(stored.parents.map(\.version.text), ["1"])
        // Ancestors' fields first, in declaration order; the default is filled in.
        XCTAssertEqual(stored.value.keys, ["name", "tags", "breed", "owner", "scores", "good"])
        XCTAssertEqual(stored.value["good"], true)
        XCTAssertEqual(stored.value["owner"], json(#"{"$type":"Person","$version":"1","$value":{"name":"Ada","photo":"AAEC","friends":[],"pets":{}}}"#))
        XCTAssertEqual(stored.plainValue, json(#"{"name":"Rex","tags":["loud"],"breed":"collie","owner":{"name":"Ada","photo":"AAEC","friends":[],"pets":{}},"scores":{"agility":9.5},"good":true}"#))
        XCTAssertEqual(stored.json.description,
                       #"{"$type":"Dog","$version":"2.1","$value":{"name":"Rex","tags":["loud"],"breed":"collie","owner":{"$type":"Person","$version":"1","$value":{"name":"Ada","photo":"AAEC","friends":[],"pets":{}}},"scores":{"agility":9.5},"good":true},"$parents":{"Animal":"1"}}"#)
        // And that is what was stored.
        XCTAssertEqual(try cache.rawBytes("rex", group: "g"), stored.json.encoded)
        XCTAssertEqual(try cache.readObject("rex").currentObject?.json, stored.json)
    }

    func testAGivenValueOverridesTheDefault() throws {
        let stored = try cache.putObject("k", "Dog", #"{"name":"a","tags":[],"breed":"b","scores":{},"good":false}"#)
        XCTAssertEqual(stored.value["good"], false)
        // null counts as absent: the default applies.
        let nulled = try cache.putObject("k", "Dog", #"{"name":"a","tags":[],"breed":"b","scores":{},"good":null}"#)
        XCTAssertEqual(nulled.value["good"], true)
    }

    func testOptionalFieldsMayBeAbsentOrNull() throws {
        let absent = try cache.putObject("k", "Kinds", "{}")
        XCTAssertTrue(absent.value.isEmpty)
        let nulls = try cache.putObject("k", "Kinds", #"{"s":null,"i":null}"#)
        XCTAssertEqual(nulls.value.keys, ["s", "i"])
        XCTAssertEqual(nulls.value["s"], .null)
    }

    func testScalarKinds() throws {
        let stored = try cache.putObject("k", "Kinds", #"""
            {"s":"x","i":2.0,"n":1.5,"b":false,"d":"2026-01-01T02:00:00+02:00","bin":"AAEC","j":{"any":[1,"two",null]},"grid":[[1,2],[]]}
            """#)
        XCTAssertEqual(stored.plainValue["j"], json(#"{"any":[1,"two",null]}"#))
        XCTAssertEqual(stored.plainValue["i"], 2)
        XCTAssertEqual(stored.plainValue["d"], "2026-01-01T02:00:00+02:00", "dates are kept as written")
        XCTAssertNoThrow(try put("Kinds", #"{"bin":""}"#), "empty data is valid base64")
        XCTAssertNoThrow(try put("Kinds", #"{"i":-9223372036854775808}"#))
    }

    func testMissingRequiredField() {
        assertInvalidObject(path: "value.breed", reason: "missing required field of type string") {
            try self.put("Dog", #"{"name":"Rex","tags":["loud"],"scores":{}}"#)
        }
        // A required field inherited from the parent.
        assertInvalidObject(path: "value.name", reason: "missing required field of type string") {
            try self.put("Dog", #"{"tags":[],"breed":"b","scores":{}}"#)
        }
        // null does not satisfy a required field.
        assertInvalidObject(path: "value.tags", reason: #"missing required field of type {"array":"string"}"#) {
            try self.put("Dog", #"{"name":"Rex","tags":null,"breed":"b","scores":{}}"#)
        }
    }

    func testUnknownField() {
        assertInvalidObject(path: "value.colour", reason: #"Dog 2.1 has no field "colour""#) {
            try self.put("Dog", #"{"name":"Rex","tags":[],"breed":"x","scores":{},"colour":"brown"}"#)
        }
        assertInvalidObject(path: "value.owner.age", reason: #"Person 1 has no field "age""#) {
            try self.put("Dog", #"{"name":"Rex","tags":[],"breed":"x","scores":{},"owner":{"name":"A","friends":[],"pets":{},"age":3}}"#)
        }
    }

    func testMapValuePath() {
        assertInvalidObject(path: "value.scores.agility", reason: "expected number, got string") {
            try self.put("Dog", #"{"name":"Rex","tags":["loud"],"breed":"collie","scores":{"speed":1,"agility":"high"}}"#)
        }
        assertInvalidObject(path: "value.scores", reason: #"expected {"map":"number"}, got array"#) {
            try self.put("Dog", #"{"name":"Rex","tags":["loud"],"breed":"collie","scores":[1]}"#)
        }
    }

    func testArrayElementPath() {
        assertInvalidObject(path: "value.tags[1]", reason: "expected string, got integer") {
            try self.put("Dog", #"{"name":"Rex","tags":["a",2,"c"],"breed":"b","scores":{}}"#)
        }
        assertInvalidObject(path: "value.grid[1][0]", reason: "expected integer, got number") {
            try self.put("Kinds", #"{"grid":[[1],[1.5]]}"#)
        }
        assertInvalidObject(path: "value.grid[0]", reason: #"expected {"array":"integer"}, got integer"#) {
            try self.put("Kinds", #"{"grid":[3]}"#)
        }
    }

    func testNestedRefPaths() {
        assertInvalidObject(path: "value.owner.name", reason: "missing required field of type string") {
            try self.put("Dog", #"{"name":"Rex","tags":[],"breed":"x","scores":{},"owner":{"friends":[],"pets":{}}}"#)
        }
        assertInvalidObject(path: "value.owner", reason: "expected an object of type Person, got string") {
            try self.put("Dog", #"{"name":"Rex","tags":[],"breed":"x","scores":{},"owner":"Ada"}"#)
        }
        // A ref inside an array, and inside a map.
        assertInvalidObject(path: "value.friends[1].photo", reason: "expected data (base64), got integer") {
            try self.put("Person", #"{"name":"A","pets":{},"friends":[{"name":"B","friends":[],"pets":{}},{"name":"C","photo":7,"friends":[],"pets":{}}]}"#)
        }
        assertInvalidObject(path: "value.friends[0].pets.tom.age", reason: "expected integer, got string") {
            try self.put("Person", #"{"name":"A","pets":{},"friends":[{"name":"B","friends":[],"pets":{"tom":{"name":"Tom","age":"old"}}}]}"#)
        }
    }

    func testNestedRefsAreTaggedAtEveryDepth() throws {
        let stored = try cache.putObject("k", "Person", #"{"name":"A","friends":[{"name":"B","friends":[],"pets":{"tom":{"name":"Tom","age":3}}}],"pets":{}}"#)
        let friend = try XCTUnwrap(StoredObject(stored.value["friends"]!.arrayValue![0]))
        XCTAssertEqual(friend.type, "Person")
        let tom = try XCTUnwrap(StoredObject(friend.value["pets"]!["tom"]!))
        XCTAssertEqual(tom.type, "Pet")
        XCTAssertEqual(tom.version.text, "1")
        XCTAssertEqual(Set(StoredObject.origins(in: .object(stored.value)).keys), ["friends.0", "friends.0.pets.tom"])
    }

    func testDates() {
        assertInvalidObject(path: "value.born", reason: #"expected a date (RFC 3339, such as 2026-01-01T00:00:00Z), got "yesterday""#) {
            try self.put("Dog", #"{"name":"Rex","tags":[],"breed":"x","scores":{},"born":"yesterday"}"#)
        }
        assertInvalidObject(path: "value.d", reason: "expected a date (RFC 3339, such as 2026-01-01T00:00:00Z), got 1700000000") {
            try self.put("Kinds", #"{"d":1700000000}"#)
        }
        assertInvalidObject(path: "value.d") { try self.put("Kinds", #"{"d":"2026-02-30T00:00:00Z"}"#) }
        assertInvalidObject(path: "value.d") { try self.put("Kinds", #"{"d":"2026-01-01"}"#) }
        XCTAssertNoThrow(try put("Kinds", #"{"d":"2024-02-29T23:59:59.999Z"}"#))
    }

    func testBase64Data() {
        assertInvalidObject(path: "value.bin", reason: "expected data (base64), got string") { try self.put("Kinds", #"{"bin":"AAE"}"#) }
        assertInvalidObject(path: "value.bin", reason: "expected data (base64), got string") { try self.put("Kinds", #"{"bin":"AA EC"}"#) }
        assertInvalidObject(path: "value.bin", reason: "expected data (base64), got string") { try self.put("Kinds", #"{"bin":"!!!!"}"#) }
        XCTAssertNoThrow(try put("Kinds", #"{"bin":"AAE="}"#))
    }

    func testScalarMismatches() {
        assertInvalidObject(path: "value.i", reason: "expected integer, got number") { try self.put("Kinds", #"{"i":1.5}"#) }
        assertInvalidObject(path: "value.i", reason: "expected integer, got string") { try self.put("Kinds", #"{"i":"1"}"#) }
        assertInvalidObject(path: "value.i", reason: "expected integer from -9223372036854775808 to 9223372036854775807, got 99999999999999999999") {
            try self.put("Kinds", #"{"i":99999999999999999999}"#)
        }
        assertInvalidObject(path: "value.n", reason: "expected number, got boolean") { try self.put("Kinds", #"{"n":true}"#) }
        assertInvalidObject(path: "value.b", reason: "expected bool, got integer") { try self.put("Kinds", #"{"b":1}"#) }
        assertInvalidObject(path: "value.s", reason: "expected string, got object") { try self.put("Kinds", #"{"s":{}}"#) }
    }

    func testTheValueMustBeAnObjectOfARegisteredType() {
        assertInvalidObject(path: "value", reason: "expected an object of type Kinds, got array") { try self.put("Kinds", "[]") }
        assertStoreError(.schemaNotFound("Cat")) { try self.put("Cat", "{}") }
        // An unknown nested type is reported as such.
        XCTAssertNoThrow(try store.register("Box", "1", #"{"fields":{"item":{"ref":"Missing"}}}"#))
        assertStoreError(.schemaNotFound("Missing")) { try self.put("Box", #"{"item":{}}"#) }
    }

    func testARefusedPutStoresNothing() throws {
        try put("Kinds", #"{"s":"before"}"#)
        assertInvalidObject(path: "value.s") { try self.put("Kinds", #"{"s":1}"#) }
        XCTAssertEqual(try cache.readObject("k").currentObject?.plainValue, json(#"{"s":"before"}"#))
        assertInvalidObject(path: "value.s") { try self.cache.putObject("new", "Kinds", #"{"s":1}"#) }
        XCTAssertTrue(try cache.readObject("new").isNotFound)
    }

    func testTaggedUsesTheNewestVersion() throws {
        try store.register("Kinds", "2", #"{"fields":{"s":"string"}}"#)
        let stored = try ObjectValidator.tagged(json(#"{"s":"x"}"#), as: "Kinds", store: store)
        XCTAssertEqual(stored.version.text, "2")
        assertInvalidObject(path: "value.i") { _ = try ObjectValidator.tagged(json(#"{"s":"x","i":1}"#), as: "Kinds", store: self.store) }
    }
}
