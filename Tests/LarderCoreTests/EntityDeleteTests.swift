import XCTest
import LarderJSON
@testable import LarderCore

/// entity.delete and delete rules: nullify (the default), cascade and deny.
final class EntityDeleteTests: StoreTestCase {
    private func filledStore(_ definition: String = bandsModel()) throws -> Store {
        let store = try makeStore()
        try store.define(definition)
        try store.stage("Band", japan)
        try store.stage("Musician", sylvian)
        try store.stage("BandMember", sylvianInJapan)
        try store.stage("Album", tinDrum, polaroids)
        try store.applyStaged()
        return store
    }

    func testCascadeDeletesRelatedRecords() throws {
        let store = try filledStore()
        // Band.albums and Band.members cascade.
        var expected = DeleteResult()
        expected.deleted = 4
        XCTAssertEqual(try store.deleteRecord("Band", id: "Japan"), expected)
        XCTAssertEqual(try store.count("Album"), 0)
        XCTAssertEqual(try store.count("BandMember"), 0)
        XCTAssertEqual(try store.count("Musician"), 1, "the cascade stops where the rules do")
        XCTAssertEqual(try store.record("Musician", "David Sylvian")?["bands"], [])
    }

    func testDenyRefusesWhileRelatedRecordsExist() throws {
        let store = try filledStore()
        assertStoreError(.deleteDenied(entity: "Musician", id: "David Sylvian", relationship: "bands", related: 1)) {
            _ = try store.deleteRecord("Musician", id: "David Sylvian")
        }
        XCTAssertNotNil(try store.record("Musician", "David Sylvian"))
        // Once the membership is gone the musician may go.
        XCTAssertEqual(try store.deleteRecord("BandMember", id: "David Sylvian in Japan").deleted, 1)
        XCTAssertEqual(try store.deleteRecord("Musician", id: "David Sylvian").deleted, 1)
    }

    func testNullifyIsTheDefault() throws {
        let store = try filledStore(bandsModel().replacingOccurrences(of: #""deleteRule": "cascade""#, with: #""deleteRule": "nullify""#))
        var expected = DeleteResult()
        expected.deleted = 1
        expected.nullified = 3
        XCTAssertEqual(try store.deleteRecord("Band", id: "Japan"), expected)
        XCTAssertEqual(try store.record("Album", "Tin Drum")?["band"], .null)
        XCTAssertEqual(try store.record("BandMember", "David Sylvian in Japan")?["band"], .null)
    }

    func testReferencesWithoutAnInverseAreNullifiedToo() throws {
        let store = try makeStore()
        try store.define(#"""
            {"model": "Places", "entities": [
              {"name": "City", "attributes": {"id": "string"}},
              {"name": "Venue", "attributes": {"id": "string"}, "relationships": [{"name": "city", "destination": "City"}]}]}
            """#)
        try store.upsert("City", #"{"id": "Tokyo"}"#)
        try store.upsert("Venue", #"{"id": "Budokan", "city": "Tokyo"}"#)
        XCTAssertEqual(try store.deleteRecord("City", id: "Tokyo").nullified, 1)
        XCTAssertEqual(try store.record("Venue", "Budokan")?["city"], .null, "no reference is left dangling")
    }

    func testADenyInsideACascadeRefusesEverything() throws {
        let store = try filledStore(bandsModel().replacingOccurrences(
            of: #"{"name": "musician", "destination": "Musician", "inverse": "bands"}"#,
            with: #"{"name": "musician", "destination": "Musician", "inverse": "bands", "deleteRule": "deny"}"#))
        // Deleting Japan cascades to its member, whose musician link denies.
        assertStoreError(.deleteDenied(entity: "BandMember", id: "David Sylvian in Japan", relationship: "musician", related: 1)) {
            _ = try store.deleteRecord("Band", id: "Japan")
        }
        XCTAssertEqual(try store.count("Album"), 2, "the cascade was rolled back")
        XCTAssertNotNil(try store.record("Band", "Japan"))
    }

    func testToOneCascadeAndCycles() throws {
        let store = try makeStore()
        try store.define(#"""
            {"model": "Pairs", "entities": [
              {"name": "Person", "attributes": {"id": "string"},
               "relationships": [{"name": "partner", "destination": "Person", "inverse": "partner", "deleteRule": "cascade"}]}]}
            """#)
        try store.upsert("Person", #"{"id": "a", "partner": "b"}"#, #"{"id": "b", "partner": "a"}"#)
        XCTAssertEqual(try store.deleteRecord("Person", id: "a").deleted, 2, "a cycle of cascades ends")
        XCTAssertEqual(try store.count("Person"), 0)
    }

    func testDeletingNothing() throws {
        let store = try filledStore()
        XCTAssertEqual(try store.deleteRecord("Band", id: "Nobody"), DeleteResult())
        assertInvalid("id", "expected an identifier of Band (string), got integer") { _ = try store.deleteRecord("Band", id: 1) }
        assertStoreError(.entityNotFound("Venue")) { _ = try store.deleteRecord("Venue", id: "x") }
    }
}

/// `nullified` counts the records that survive with a reference cleared, not
/// the records the same cascade deletes anyway.
final class EntityDeleteCountTests: StoreTestCase {
    func testReferencesFromDoomedRecordsAreNotCountedAsNullified() throws {
        let store = try makeStore()
        try store.define(#"""
            {"model": "teams", "entities": [
              {"name": "Team", "attributes": {"id": "string"},
               "relationships": [{"name": "members", "destination": "Person", "toMany": true, "inverse": "team", "deleteRule": "cascade"}]},
              {"name": "Person", "attributes": {"id": "string"},
               "relationships": [{"name": "team", "destination": "Team", "inverse": "members"},
                                 {"name": "friend", "destination": "Person"}]}]}
            """#)
        _ = try store.upsert("Team", #"{"id": "t"}"#)
        _ = try store.upsert("Person", #"{"id": "p1", "team": "t"}"#, #"{"id": "p3", "team": "t", "friend": "p1"}"#,
                             #"{"id": "p2", "friend": "p1"}"#)
        let result = try store.deleteRecord("Team", id: "t")
        XCTAssertEqual(result.deleted, 3, "the team and its two members")
        XCTAssertEqual(result.nullified, 1, "only p2 survives with its friend cleared")
        XCTAssertEqual(try store.record("Person", "p2")?["friend"], .null)
    }
}
