import XCTest
import LarderJSON
@testable import LarderCore
import LarderStorage

/// Both sides of a relationship with an inverse agree, as Core Data keeps
/// them: one-to-one, a to-many list, later records of a batch winning, and
/// deletes.
final class EntityInverseTests: StoreTestCase {
    /// A person holds one passport (one-to-one), a team lists its players (one-to-many).
    private func travelStore() throws -> Store {
        let store = try makeStore()
        try store.define(#"""
            {"model": "Travel", "entities": [
              {"name": "Person", "attributes": {"id": "string"},
               "relationships": [{"name": "passport", "destination": "Passport", "inverse": "owner"},
                                 {"name": "partner", "destination": "Person", "inverse": "partner"}]},
              {"name": "Passport", "attributes": {"id": "string"},
               "relationships": [{"name": "owner", "destination": "Person", "inverse": "passport", "deleteRule": "cascade"}]},
              {"name": "Team", "attributes": {"id": "integer"},
               "relationships": [{"name": "players", "destination": "Player", "toMany": true, "inverse": "team"}]},
              {"name": "Player", "attributes": {"id": "string"},
               "relationships": [{"name": "team", "destination": "Team"}]}]}
            """#)
        try store.upsert("Person", #"{"id": "ann"}"#, #"{"id": "bob"}"#, #"{"id": "cy"}"#)
        try store.upsert("Passport", #"{"id": "P1"}"#, #"{"id": "P2"}"#)
        try store.upsert("Team", #"{"id": 1}"#, #"{"id": 2}"#)
        try store.upsert("Player", #"{"id": "p"}"#, #"{"id": "q"}"#, #"{"id": "r"}"#)
        return store
    }

    private func link(_ store: Store, _ entity: String, _ id: String, _ key: String) throws -> JSON? {
        try store.record(entity, id)?[key]
    }

    func testSettingOneSideOfAOneToOneSetsTheOther() throws {
        let store = try travelStore()
        try store.upsert("Passport", #"{"id": "P1", "owner": "ann"}"#)
        XCTAssertEqual(try link(store, "Person", "ann", "passport"), "P1")
        XCTAssertEqual(try store.record("Person", "ann", include: ["passport"])?["passport"], json(#"{"id": "P1", "owner": "ann"}"#))
        try store.upsert("Person", #"{"id": "bob", "passport": "P2"}"#)
        XCTAssertEqual(try link(store, "Passport", "P2", "owner"), "bob")
    }

    func testANewPartnerClearsBothOldPartners() throws {
        let store = try travelStore()
        try store.upsert("Person", #"{"id": "ann", "passport": "P1"}"#, #"{"id": "bob", "passport": "P2"}"#)
        // P1 leaves ann for bob: ann loses P1, bob loses P2, P2 loses bob.
        try store.upsert("Passport", #"{"id": "P1", "owner": "bob"}"#)
        XCTAssertEqual(try link(store, "Person", "bob", "passport"), "P1")
        XCTAssertEqual(try link(store, "Person", "ann", "passport"), .null)
        XCTAssertEqual(try link(store, "Passport", "P2", "owner"), .null)
        // Null clears the other side too.
        try store.upsert("Person", #"{"id": "bob", "passport": null}"#)
        XCTAssertEqual(try link(store, "Passport", "P1", "owner"), .null)
    }

    func testARelationshipThatIsItsOwnInverse() throws {
        let store = try travelStore()
        try store.upsert("Person", #"{"id": "ann", "partner": "bob"}"#)
        XCTAssertEqual(try link(store, "Person", "bob", "partner"), "ann")
        try store.upsert("Person", #"{"id": "cy", "partner": "ann"}"#)
        XCTAssertEqual(try link(store, "Person", "ann", "partner"), "cy")
        XCTAssertEqual(try link(store, "Person", "bob", "partner"), .null)
    }

    func testAToManyListSetsAndClearsTheToOneSide() throws {
        let store = try travelStore()
        XCTAssertEqual(try store.upsert("Team", #"{"id": 1, "players": ["p", "q"]}"#), applyResult(updated: 1, linked: 2))
        XCTAssertEqual(try link(store, "Player", "p", "team"), 1)
        try store.upsert("Team", #"{"id": 1, "players": ["q", "r"]}"#)
        XCTAssertEqual(try link(store, "Player", "p", "team"), .null, "no longer listed")
        try store.upsert("Team", #"{"id": 2, "players": ["q"]}"#)
        XCTAssertEqual(try store.record("Team", id: 1)?["players"], ["r"], "q moved to team 2")
        XCTAssertEqual(try store.record("Team", id: 2, include: ["players"])?["players"], json(#"[{"id": "q", "team": 2}]"#))
        try store.upsert("Team", #"{"id": 2, "players": []}"#)
        XCTAssertEqual(try link(store, "Player", "q", "team"), .null)
        // A record read back and sent as it is changes nothing.
        let one = try XCTUnwrap(store.record("Team", id: 1))
        try store.upsert([one], entity: "Team")
        XCTAssertEqual(try store.record("Team", id: 1)?["players"], ["r"])
    }

    func testAListNamingMissingRecords() throws {
        let store = try travelStore()
        let missing = UnresolvedReference(entity: "Team", id: 1, relationship: "players", destination: "Player", missingID: "zed")
        assertStoreError(.unresolvedReferences([missing])) { try store.upsert("Team", #"{"id": 1, "players": ["p", "zed"]}"#) }
        XCTAssertEqual(try link(store, "Player", "p", "team"), .null, "nothing was written")
        XCTAssertEqual(try store.upsert("Team", #"{"id": 1, "players": ["p", "zed"]}"#, onMissing: .null),
                       applyResult(updated: 1, linked: 1, unresolved: 1))
        XCTAssertEqual(try store.record("Team", id: 1)?["players"], ["p"])
        assertInvalid("records[0].players[1]", #"Team 1 lists Player "p" twice"#) { try store.upsert("Team", #"{"id": 1, "players": ["p", "p"]}"#) }
        assertInvalid("records[0].players[0]", "expected the identifier of a Player, got object") {
            try store.upsert("Team", #"{"id": 1, "players": [{"id": "p"}]}"#)
        }
        assertInvalid("records[0].players", "expected an array of Player identifiers, got string") { try store.upsert("Team", #"{"id": 1, "players": "p"}"#) }
    }

    func testLaterRecordsOfABatchWin() throws {
        let store = try travelStore()
        // Team 2's list comes later than p's own reference to team 1.
        try store.stage("Player", #"{"id": "p", "team": 1}"#)
        try store.stage("Team", #"{"id": 2, "players": ["p"]}"#)
        try store.applyStaged()
        XCTAssertEqual(try link(store, "Player", "p", "team"), 2)
        // And the other way round.
        try store.stage("Team", #"{"id": 2, "players": ["q"]}"#)
        try store.stage("Player", #"{"id": "q", "team": 1}"#)
        try store.applyStaged()
        XCTAssertEqual(try link(store, "Player", "q", "team"), 1)
        XCTAssertEqual(try store.record("Team", id: 2)?["players"], [])
        // Two lists claim r, two people claim P1: the later of each keeps it.
        try store.stage("Team", #"{"id": 1, "players": ["r"]}"#, #"{"id": 2, "players": ["r"]}"#)
        try store.stage("Person", #"{"id": "ann", "passport": "P1"}"#, #"{"id": "bob", "passport": "P1"}"#)
        try store.stage("Passport", #"{"id": "P2", "owner": "ann"}"#)
        try store.applyStaged()
        XCTAssertEqual(try link(store, "Player", "r", "team"), 2)
        XCTAssertEqual(try link(store, "Passport", "P1", "owner"), "bob")
        XCTAssertEqual(try link(store, "Person", "bob", "passport"), "P1")
        XCTAssertEqual(try link(store, "Person", "ann", "passport"), "P2")
        XCTAssertEqual(try link(store, "Passport", "P2", "owner"), "ann")
    }

    func testDeletingOneSideOfAOneToOne() throws {
        let store = try travelStore()
        try store.upsert("Person", #"{"id": "ann", "passport": "P1"}"#, #"{"id": "bob", "passport": "P2"}"#)
        // Passport.owner cascades: deleting the passport deletes its owner, whose other side is gone too.
        XCTAssertEqual(try store.deleteRecord("Passport", id: "P1").deleted, 2)
        XCTAssertNil(try store.record("Person", "ann"))
        // Person.passport nullifies: the passport stays, its owner cleared.
        var expected = DeleteResult()
        expected.deleted = 1
        expected.nullified = 1
        XCTAssertEqual(try store.deleteRecord("Person", id: "bob"), expected)
        XCTAssertEqual(try link(store, "Passport", "P2", "owner"), .null)
    }

    func testARelationshipClaimedAsInverseTwiceIsRefused() throws {
        let store = try makeStore()
        assertInvalid("entities[1].relationships[0]",
                      "Person.passport and Person.oldPassport both name Passport.owner as their inverse; a relationship has one inverse") {
            try store.define(#"""
                {"model": "Travel", "entities": [
                  {"name": "Person", "attributes": {"id": "string"},
                   "relationships": [{"name": "passport", "destination": "Passport", "inverse": "owner"},
                                     {"name": "oldPassport", "destination": "Passport", "inverse": "owner"}]},
                  {"name": "Passport", "attributes": {"id": "string"},
                   "relationships": [{"name": "owner", "destination": "Person"}]}]}
                """#)
        }
    }
}

/// A model stored before two claims on one inverse were refused keeps working.
final class EntityStoredInverseTests: StoreTestCase {
    func testAStoredModelWithTwoClaimsOnOneInverseKeepsNeitherInStep() throws {
        let store = try makeStore()
        try store.define(#"""
            {"model": "Travel", "entities": [
              {"name": "Person", "attributes": {"id": "string"},
               "relationships": [{"name": "passport", "destination": "Passport", "inverse": "owner"},
                                 {"name": "oldPassport", "destination": "Passport"}]},
              {"name": "Passport", "attributes": {"id": "string"},
               "relationships": [{"name": "owner", "destination": "Person"}]}]}
            """#)
        let claimed = #"{"model":"Travel","casing":"camelCase","dateFormat":"iso8601","reservedWords":["description"],"entities":[{"name":"Person","identifier":"id","attributes":{"id":"string"},"relationships":[{"name":"passport","destination":"Passport","toMany":false,"inverse":"owner","deleteRule":"nullify"},{"name":"oldPassport","destination":"Passport","toMany":false,"inverse":"owner","deleteRule":"nullify"}]},{"name":"Passport","identifier":"id","attributes":{"id":"string"},"relationships":[{"name":"owner","destination":"Person","toMany":false,"deleteRule":"nullify"}]}]}"#
        try store.atomically(changing: .entries) { () throws(StoreError) in
            let s = try store.database.statement("UPDATE entity_models SET definition = ? WHERE name = ?")
            s.bind(1, .text(claimed))
            s.bind(2, .text("Travel"))
            try s.run()
        }
        store.close()
        let reopened = try makeStore()
        try reopened.upsert("Person", #"{"id": "ann"}"#)
        try reopened.upsert("Passport", #"{"id": "P1", "owner": "ann"}"#)
        try reopened.upsert("Person", #"{"id": "bob", "passport": "P1", "oldPassport": "P1"}"#)
        XCTAssertEqual(try reopened.record("Passport", "P1")?["owner"], "ann", "written as given, nothing inferred")
        XCTAssertEqual(try reopened.record("Person", "ann")?["passport"], .null)
    }
}
