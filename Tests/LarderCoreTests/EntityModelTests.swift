import XCTest
import LarderJSON
@testable import LarderCore
import LarderStorage

/// entity.define: checking models, real tables, redefinition in place or refused, and persistence.
final class EntityModelTests: StoreTestCase {
    func testEachEntityIsATableWithAPrimaryKeyAndAnIndexPerToOneRelationship() throws {
        try requireSQLite("reads sqlite_schema")
        let store = try makeStore()
        let result = try store.define(bandsModel())
        XCTAssertEqual(result, ModelDefinitionResult(created: true, newEntities: ["Band", "BandMember", "Musician", "Album"], addedMembers: []))
        let sql = try store.schemaSQL()
        XCTAssertTrue(sql.contains(#"CREATE TABLE "entity.Album" ("name" TEXT NOT NULL, "released" INTEGER NOT NULL, "label" TEXT NOT NULL, "band" TEXT, PRIMARY KEY ("name")) STRICT, WITHOUT ROWID"#), sql)
        XCTAssertTrue(sql.contains(#"CREATE INDEX "entity.BandMember.musician" ON "entity.BandMember" ("musician")"#), sql)
        XCTAssertFalse(sql.contains(#""albums""#), "a to-many relationship has no column")
    }

    func testNamesAreQuotedNotSpliced() throws {
        let store = try makeStore()
        try store.define(#"""
            {"model": "Odd", "reservedWords": [], "entities": [
              {"name": "Ta\"ble; DROP TABLE caches", "attributes": {"id": "string", "select": "string?", "it's": "integer?"}}]}
            """#)
        try store.upsert([["id": "x", "select": "'; DELETE", "it's": 1]], entity: #"Ta"ble; DROP TABLE caches"#)
        XCTAssertEqual(try store.record(#"Ta"ble; DROP TABLE caches"#, "x"), json(#"{"id": "x", "select": "'; DELETE", "it's": 1}"#))
        XCTAssertNoThrow(try store.allCaches(), "the store's own tables are intact")
    }

    /// PostgreSQL cuts names past 63 bytes short: a store there refuses a
    /// model that would need one, naming it; SQLite takes it.
    func testNamesTooLongForTheEngineAreRefused() throws {
        let store = try makeStore()
        let long = String(repeating: "Long", count: 14)  // 56 bytes: "entity." makes 63, fine
        let longer = long + "X"
        XCTAssertNoThrow(try store.define(#"{"model": "A", "entities": [{"name": "\#(long)", "attributes": {"id": "string"}}]}"#))
        let define = { () throws in
            _ = try store.define(#"{"model": "B", "entities": [{"name": "\#(longer)", "attributes": {"id": "string"}}]}"#)
        }
        if TestEngine.isPostgreSQL {
            assertInvalid("entities[0]", "a store on PostgreSQL names a table, column or index in at most 63 bytes, and entity.\(longer) has 64") {
                try define()
            }
            XCTAssertNil(try store.entityModels().first { $0.name == "B" }, "nothing was defined")
        } else {
            XCTAssertNoThrow(try define())
        }
    }

    func testTheIdentifierIsIdUnlessNamed() throws {
        let store = try makeStore()
        assertInvalid("entities[0].identifier", "Thing has no attribute \"id\" to identify its records") {
            try store.define(#"{"model": "M", "entities": [{"name": "Thing", "attributes": {"name": "string"}}]}"#)
        }
        assertInvalid("entities[0].attributes.name", "the identifier of Thing must be a required string or integer, not {\"optional\":\"string\"}") {
            try store.define(#"{"model": "M", "entities": [{"name": "Thing", "identifier": "name", "attributes": {"name": "string?"}}]}"#)
        }
        XCTAssertNoThrow(try store.define(#"{"model": "M", "entities": [{"name": "Thing", "identifier": "name", "attributes": {"name": "string"}}]}"#))
    }

    func testBadDefinitionsAreRefusedWithTheirPath() throws {
        let store = try makeStore()
        assertInvalid("entities[0].attributes.tags", "an attribute has a scalar type") {
            try store.define(#"{"model": "M", "entities": [{"name": "T", "attributes": {"id": "string", "tags": {"array": "string"}}}]}"#)
        }
        assertInvalid("entities[0].relationships[0].destination", "T.owner leads to Person, which is not an entity of model M") {
            try store.define(#"{"model": "M", "entities": [{"name": "T", "attributes": {"id": "string"}, "relationships": [{"name": "owner", "destination": "Person"}]}]}"#)
        }
        assertInvalid("entities[0].relationships[0]", "to-many relationship A.bs needs an inverse") {
            try store.define(#"{"model": "M", "entities": [{"name": "A", "attributes": {"id": "string"}, "relationships": [{"name": "bs", "destination": "B", "toMany": true}]}, {"name": "B", "attributes": {"id": "string"}}]}"#)
        }
        assertInvalid("entities[0].relationships[0]", "many-to-many relationships are not supported") {
            try store.define(#"{"model": "M", "entities": [{"name": "A", "attributes": {"id": "string"}, "relationships": [{"name": "bs", "destination": "B", "toMany": true, "inverse": "as"}]}, {"name": "B", "attributes": {"id": "string"}, "relationships": [{"name": "as", "destination": "A", "toMany": true, "inverse": "bs"}]}]}"#)
        }
        assertInvalid("entities[0].relationships[0].deleteRule", "expected \"nullify\", \"cascade\" or \"deny\"") {
            try store.define(#"{"model": "M", "entities": [{"name": "A", "attributes": {"id": "string"}, "relationships": [{"name": "a", "destination": "A", "deleteRule": "explode"}]}]}"#)
        }
        assertInvalid("entities[1].name", "entity A is defined twice") {
            try store.define(#"{"model": "M", "entities": [{"name": "A", "attributes": {"id": "string"}}, {"name": "A", "attributes": {"id": "string"}}]}"#)
        }
        assertInvalid("dateFormat", "expected \"iso8601\", \"iso8601Basic\" or \"epochSeconds\"") {
            try store.define(#"{"model": "M", "dateFormat": "rfc822", "entities": [{"name": "A", "attributes": {"id": "string"}}]}"#)
        }
        assertInvalid("casing", "expected \"camelCase\" or \"snake_case\"") {
            try store.define(#"{"model": "M", "casing": "kebab-case", "entities": [{"name": "A", "attributes": {"id": "string"}}]}"#)
        }
        assertUnknownMember("datefmt", suggestion: nil) {
            try store.define(#"{"model": "M", "datefmt": "iso8601", "entities": [{"name": "A", "attributes": {"id": "string"}}]}"#)
        }
        assertUnknownMember("entities[0].atributes", suggestion: "attributes") {
            try store.define(#"{"model": "M", "entities": [{"name": "A", "atributes": {"id": "string"}}]}"#)
        }
        XCTAssertEqual(try store.entityModels().count, 0, "nothing was defined")
    }

    func testTheInverseMayBeDeclaredOnEitherSide() throws {
        let store = try makeStore()
        try store.define(#"""
            {"model": "M", "entities": [
              {"name": "Band", "attributes": {"id": "string"}, "relationships": [{"name": "albums", "destination": "Album", "toMany": true}]},
              {"name": "Album", "attributes": {"id": "string"}, "relationships": [{"name": "band", "destination": "Band", "inverse": "albums"}]}]}
            """#)
        try store.upsert("Band", #"{"id": "b"}"#)
        try store.upsert("Album", #"{"id": "a", "band": "b"}"#)
        XCTAssertEqual(try store.record("Band", "b")?["albums"], ["a"])
    }

    func testEntityNamesAreUniqueAcrossModels() throws {
        let store = try makeStore()
        try store.define(bandsModel())
        assertInvalid("entities[0].name", "entity Band belongs to model Bands") {
            try store.define(#"{"model": "Other", "entities": [{"name": "Band", "attributes": {"id": "string"}}]}"#)
        }
    }

    func testTheSameDefinitionAgainChangesNothing() throws {
        let store = try makeStore()
        try store.define(bandsModel())
        XCTAssertEqual(try store.define(bandsModel()), ModelDefinitionResult(created: false, newEntities: [], addedMembers: []))
    }

    func testRedefinitionAddsOptionalAttributesAndEntitiesInPlace() throws {
        let store = try makeStore()
        try store.define(bandsModel())
        try store.upsert("Band", japan)
        let extended = bandsModel()
            .replacingOccurrences(of: #""otherNames": "string?""#, with: #""otherNames": "string?", "country": "string?""#)
            .replacingOccurrences(of: #"{"name": "band", "destination": "Band", "inverse": "albums"}"#,
                                  with: #"{"name": "band", "destination": "Band", "inverse": "albums"}, {"name": "producer", "destination": "Producer"}"#)
            .replacingOccurrences(of: "\n]}", with: #", {"name": "Producer", "attributes": {"id": "string"}}]}"#)
        let result = try store.define(extended)
        XCTAssertEqual(result, ModelDefinitionResult(created: false, newEntities: ["Producer"], addedMembers: ["Band.country", "Album.producer"]))
        // The data is still there, the new column is null until set.
        XCTAssertEqual(try store.record("Band", "Japan")?["country"], .null)
        XCTAssertEqual(try store.record("Band", "Japan")?["formed"], 1974)
        try store.upsert("Band", #"{"name": "Japan", "country": "UK"}"#)
        try store.upsert("Producer", #"{"id": "Steve Nye"}"#)
        try store.upsert("Album", #"{"name": "Tin Drum", "band": "Japan", "producer": "Steve Nye", "released": "1981-11-13T00:00:00Z", "label": "Virgin"}"#)
        XCTAssertEqual(try store.record("Band", "Japan")?["country"], "UK")
        XCTAssertEqual(try store.record("Album", "Tin Drum")?["producer"], "Steve Nye")
    }

    func testRecordsStagedBeforeARedefinitionStillApply() throws {
        let store = try makeStore()
        try store.define(bandsModel())
        try store.stage("Band", #"{"name": "Japan", "formed": 1974, "other_names": "Rain Tree Crow"}"#)
        // The new attribute comes first: positions shift, names do not.
        try store.define(bandsModel().replacingOccurrences(of: #""name": "string", "formed""#, with: #""country": "string?", "name": "string", "formed""#))
        try store.stage("Band", #"{"name": "Japan", "country": "UK"}"#)
        XCTAssertEqual(try store.applyStaged(), applyResult(inserted: 1))
        let band = try XCTUnwrap(store.record("Band", "Japan"))
        XCTAssertEqual(band["other_names"], "Rain Tree Crow")
        XCTAssertEqual(band["country"], "UK")
        XCTAssertEqual(band["formed"], 1974)
    }

    func testAnyOtherRedefinitionIsRefusedNamingEachChange() throws {
        let store = try makeStore()
        try store.define(bandsModel())
        try store.upsert("Band", japan)
        let changed = bandsModel(dateFormat: "epochSeconds")
            .replacingOccurrences(of: #""formed": "integer""#, with: #""formed": "string""#)
            .replacingOccurrences(of: #""hiatus": "string?","#, with: "")
            .replacingOccurrences(of: #""otherNames": "string?""#, with: #""otherNames": "string?", "country": "string""#)
            .replacingOccurrences(of: #""inverse": "musician", "deleteRule": "deny""#, with: #""inverse": "musician", "deleteRule": "cascade""#)
        assertStoreError(.modelConflict(model: "Bands", changes: [
            "dateFormat changed from iso8601 to epochSeconds",
            "attribute Band.formed changed from integer to string",
            "attribute Band.hiatus removed",
            "attribute Band.country added as required string (existing records have no value; add it as string?)",
            "relationship Musician.bands changed: deleteRule deny → cascade",
        ])) { try store.define(changed) }
        let withoutAlbums = #"{"model": "Bands", "casing": "snake_case", "entities": [{"name": "Band", "identifier": "name", "attributes": {"name": "string"}}]}"#
        do {
            try store.define(withoutAlbums)
            XCTFail("removing entities must be refused")
        } catch let StoreError.modelConflict(_, changes) {
            XCTAssertTrue(changes.contains("entity Album removed"), "\(changes)")
            XCTAssertTrue(changes.contains("relationship Band.albums removed"), "\(changes)")
        }
        // Nothing changed.
        XCTAssertEqual(try store.record("Band", "Japan")?["hiatus"], "1982-1989")
        XCTAssertEqual(try store.entityModels().first, try EntityModel(definition: json(bandsModel())))
    }

    func testModelsAndRecordsSurviveReopening() throws {
        let store = try makeStore()
        try store.define(bandsModel())
        try store.stage("Band", japan)
        try store.stage("Album", tinDrum)
        try store.applyStaged()
        store.close()
        let reopened = try makeStore()
        XCTAssertEqual(try reopened.entityModels(), [try EntityModel(definition: json(bandsModel()))])
        XCTAssertEqual(try reopened.record("Band", "Japan")?["albums"], ["Tin Drum"])
        XCTAssertEqual(try reopened.record("Band", "Japan")?["description"], "Initially a glam-inspired group")
        // A later batch of albums alone links to the band the earlier process stored.
        XCTAssertEqual(try reopened.upsert("Album", polaroids), applyResult(inserted: 1, linked: 1))
        XCTAssertEqual(try reopened.record("Band", "Japan")?["albums"], ["Gentlemen Take Polaroids", "Tin Drum"])
    }

    func testARolledBackDefinitionIsForgotten() throws {
        let store = try makeStore()
        try store.define(bandsModel())
        XCTAssertTrue(store.hasPendingWrites)
        store.transactions.rollBack()
        XCTAssertEqual(try store.entityModels(), [])
        assertStoreError(.entityNotFound("Band")) { _ = try store.count("Band") }
    }
}

extension Store {
    /// The SQL of every table and index in the database.
    func schemaSQL() throws -> String {
        let s = try database.statement("SELECT sql FROM sqlite_schema WHERE sql IS NOT NULL")
        defer { s.reset() }
        var lines: [String] = []
        while try s.step() { lines.append(try s.string(0)) }
        return lines.joined(separator: "\n")
    }
}
