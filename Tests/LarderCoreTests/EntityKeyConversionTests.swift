import XCTest
import LarderJSON
@testable import LarderCore

/// snake_case ⇄ camelCase and reserved words, both ways, alone and through the store.
final class EntityKeyConversionTests: StoreTestCase {
    func testSnakeCaseBecomesCamelCase() {
        XCTAssertEqual(KeyCasing.camelCased("band_members"), "bandMembers")
        XCTAssertEqual(KeyCasing.camelCased("user_id"), "userId")
        XCTAssertEqual(KeyCasing.camelCased("other_names"), "otherNames")
        XCTAssertEqual(KeyCasing.camelCased("a_long_key_name"), "aLongKeyName")
        XCTAssertEqual(KeyCasing.camelCased("name"), "name")
        XCTAssertEqual(KeyCasing.camelCased("address_2"), "address_2", "an underscore before a digit stays")
        XCTAssertEqual(KeyCasing.camelCased("_private"), "_private", "a leading underscore stays")
        XCTAssertEqual(KeyCasing.camelCased("trailing_"), "trailing_")
        XCTAssertEqual(KeyCasing.camelCased("bandMembers"), "bandMembers", "camelCase input passes through")
    }

    func testCamelCaseBecomesSnakeCase() {
        XCTAssertEqual(KeyCasing.snakeCased("bandMembers"), "band_members")
        XCTAssertEqual(KeyCasing.snakeCased("userId"), "user_id")
        XCTAssertEqual(KeyCasing.snakeCased("otherNames"), "other_names")
        XCTAssertEqual(KeyCasing.snakeCased("address2Line"), "address2_line")
        XCTAssertEqual(KeyCasing.snakeCased("name"), "name")
        XCTAssertEqual(KeyCasing.snakeCased("URL"), "U_r_l")
    }

    func testConversionRoundTripsBothWays() {
        for name in ["bandMembers", "userId", "otherNames", "address2Line", "id", "URL", "aBC", "héllo", "_private"] {
            XCTAssertEqual(KeyCasing.camelCased(KeyCasing.snakeCased(name)), name, name)
        }
        for key in ["band_members", "user_id", "other_names", "address2_line", "id", "x"] {
            XCTAssertEqual(KeyCasing.snakeCased(KeyCasing.camelCased(key)), key, key)
        }
    }

    func testReservedWordsAreQualifiedWithTheEntityName() {
        let band = KeyMap(entity: "Band", casing: .snakeCase, reservedWords: ["description"])
        XCTAssertEqual(band.name(forKey: "description"), "bandDescription")
        XCTAssertEqual(band.key(forName: "bandDescription"), "description")
        XCTAssertEqual(band.name(forKey: "other_names"), "otherNames")
        XCTAssertEqual(band.key(forName: "otherNames"), "other_names")
        let member = KeyMap(entity: "BandMember", casing: .camelCase, reservedWords: ["description"])
        XCTAssertEqual(member.name(forKey: "description"), "bandMemberDescription")
        XCTAssertEqual(member.key(forName: "bandMemberDescription"), "description")
    }

    func testOnlyListedWordsAreReserved() {
        let keys = KeyMap(entity: "Band", casing: .snakeCase, reservedWords: ["type", "class_name"])
        XCTAssertEqual(keys.name(forKey: "type"), "bandType")
        XCTAssertEqual(keys.key(forName: "bandType"), "type")
        XCTAssertEqual(keys.name(forKey: "class_name"), "bandClassName")
        XCTAssertEqual(keys.key(forName: "bandClassName"), "class_name")
        XCTAssertEqual(keys.name(forKey: "description"), "description", "not listed: not reserved")
        XCTAssertEqual(keys.key(forName: "bandDescription"), "band_description")
    }

    func testCamelCaseModelsConvertNothingButReservedWords() {
        let keys = KeyMap(entity: "Band", casing: .camelCase, reservedWords: ["description"])
        XCTAssertEqual(keys.name(forKey: "other_names"), "other_names")
        XCTAssertEqual(keys.key(forName: "otherNames"), "otherNames")
        XCTAssertEqual(keys.name(forKey: "description"), "bandDescription")
    }

    func testRecordsConvertOnTheWayInAndBackOnTheWayOut() throws {
        let store = try makeStore()
        try store.define(bandsModel())
        try store.upsert("Band", #"{"name": "Japan", "formed": 1974, "other_names": "Rain Tree Crow", "description": "glam"}"#)
        try store.upsert("Musician", sylvian)
        try store.upsert("BandMember", #"{"id": "m1", "band": "Japan", "musician": "David Sylvian", "instruments": "vocals", "joined": 1974}"#)
        let band = try XCTUnwrap(store.record("Band", "Japan"))
        XCTAssertEqual(band, json(#"""
            {"name": "Japan", "formed": 1974, "disbanded": null, "hiatus": null, "description": "glam",
             "other_names": "Rain Tree Crow", "albums": [], "members": ["m1"]}
            """#))
        XCTAssertEqual(band.objectValue?.keys, ["name", "formed", "disbanded", "hiatus", "description", "other_names", "albums", "members"],
                       "keys come back in the model's order")
        // The column holds the model name.
        let definition = try store.entities.entity("Band").entity
        XCTAssertEqual(definition.attributeKeys, ["name", "formed", "disbanded", "hiatus", "description", "other_names"])
    }

    func testIdSuffixesRoundTripThroughTheStore() throws {
        let store = try makeStore()
        try store.define(#"""
            {"model": "Users", "casing": "snake_case", "entities": [
              {"name": "User", "attributes": {"id": "integer", "userId": "string", "bandMembers": "integer?"}}]}
            """#)
        try store.upsert("User", #"{"id": 1, "user_id": "u-1", "band_members": 4}"#)
        XCTAssertEqual(try store.record("User", id: 1), json(#"{"id": 1, "user_id": "u-1", "band_members": 4}"#))
    }

    func testCamelCaseModelsKeepKeysAndStillQualifyReservedWords() throws {
        let store = try makeStore()
        try store.define(bandsModel(casing: "camelCase"))
        try store.upsert("Band", #"{"name": "Japan", "formed": 1974, "otherNames": "Rain Tree Crow", "description": "glam"}"#)
        let band = try XCTUnwrap(store.record("Band", "Japan"))
        XCTAssertEqual(band["otherNames"], "Rain Tree Crow")
        XCTAssertEqual(band["description"], "glam")
        XCTAssertNil(band["bandDescription"])
    }

    func testNamesThatDoNotSurviveConversionAreRefused() throws {
        let store = try makeStore()
        assertInvalid("entities[0].attributes.user_id", "does not survive snake_case conversion (user_id → user_id → userId)") {
            try store.define(#"{"model": "M", "casing": "snake_case", "entities": [{"name": "U", "attributes": {"id": "integer", "user_id": "string"}}]}"#)
        }
        // The same name is fine when nothing is converted.
        XCTAssertNoThrow(try store.define(#"{"model": "M", "entities": [{"name": "U", "attributes": {"id": "integer", "user_id": "string"}}]}"#))
    }

    func testAReservedWordCannotBeAnAttributeName() throws {
        let store = try makeStore()
        assertInvalid("entities[0].attributes.description", "\"description\" is a reserved word: Band holds it as bandDescription") {
            try store.define(#"{"model": "M", "entities": [{"name": "Band", "attributes": {"id": "integer", "description": "string"}}]}"#)
        }
        // Unless the model reserves other words.
        XCTAssertNoThrow(try store.define(#"{"model": "M", "reservedWords": [], "entities": [{"name": "Band", "attributes": {"id": "integer", "description": "string"}}]}"#))
    }

    func testUnknownKeysInRecordsAreRefused() throws {
        let store = try makeStore()
        try store.define(bandsModel())
        assertInvalid("records[0].colour", "Band \"Japan\": Band has no attribute or relationship \"colour\"") {
            try store.stage("Band", #"{"name": "Japan", "formed": 1974, "colour": "red"}"#)
        }
        assertInvalid("records[0].fromed", "Band \"Japan\": Band has no attribute or relationship \"fromed\" (did you mean formed?)") {
            try store.stage("Band", #"{"name": "Japan", "fromed": 1974}"#)
        }
        XCTAssertEqual(store.stagedEntities.count, 0)
    }
}
