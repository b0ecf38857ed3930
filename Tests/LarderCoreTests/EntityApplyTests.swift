import XCTest
import LarderJSON
@testable import LarderCore
import LarderStorage

/// Staging and applying: accumulation, merge semantics, linking, unresolved references, one result per apply.
final class EntityApplyTests: StoreTestCase {
    private func bandsStore() throws -> Store {
        let store = try makeStore()
        try store.define(bandsModel())
        return store
    }

    func testStagingAccumulatesAcrossCallsAndOneApplyWritesEverything() throws {
        let store = try bandsStore()
        XCTAssertEqual(try store.stage("Band", japan), 1)
        XCTAssertEqual(try store.stage("BandMember", sylvianInJapan), 2)
        XCTAssertEqual(try store.stage("Musician", sylvian), 3)
        XCTAssertEqual(try store.stage("Album", tinDrum, polaroids), 5)
        XCTAssertEqual(try store.count("Band"), 0, "staging writes nothing")
        // One apply, one result, covering all four calls.
        XCTAssertEqual(try store.applyStaged(), applyResult(inserted: 5, linked: 4))
        XCTAssertEqual(try store.count("Album"), 2)
        XCTAssertEqual(try store.record("Band", "Japan", include: ["albums", "members"])?["albums"]?.arrayValue?.count, 2)
        // The batch was consumed: applying again does nothing.
        XCTAssertEqual(try store.applyStaged(), applyResult())
        XCTAssertTrue(store.stagedEntities.isEmpty)
    }

    func testReferencesResolveWhateverOrderEntitiesWereStagedIn() throws {
        let store = try bandsStore()
        try store.stage("Album", tinDrum)
        try store.stage("Band", japan)
        XCTAssertEqual(try store.applyStaged(), applyResult(inserted: 2, linked: 1))
        XCTAssertEqual(try store.record("Album", "Tin Drum")?["band"], "Japan")
    }

    func testALaterBatchLinksToRecordsAlreadyInTheStore() throws {
        let store = try bandsStore()
        try store.upsert("Band", japan)
        try store.stage("Album", #"{"name": "Oil on Canvas", "band": "Japan", "released": "1983-06-01T00:00:00Z", "label": "Virgin"}"#)
        XCTAssertEqual(try store.applyStaged(), applyResult(inserted: 1, linked: 1))
        XCTAssertEqual(try store.record("Band", "Japan")?["albums"], ["Oil on Canvas"])
    }

    func testAbsentKeysAreUntouchedAndExplicitNullClears() throws {
        let store = try bandsStore()
        try store.upsert("Band", #"{"name": "Japan", "formed": 1974, "disbanded": 1991, "hiatus": "1982-1989", "other_names": "Rain Tree Crow"}"#)
        XCTAssertEqual(try store.upsert("Band", #"{"name": "Japan", "hiatus": null, "formed": 1973}"#), applyResult(updated: 1))
        let band = try XCTUnwrap(store.record("Band", "Japan"))
        XCTAssertEqual(band["formed"], 1973, "mentioned: replaced")
        XCTAssertEqual(band["hiatus"], .null, "explicit null: cleared")
        XCTAssertEqual(band["disbanded"], 1991, "absent: untouched")
        XCTAssertEqual(band["other_names"], "Rain Tree Crow", "absent: untouched")
        // A required attribute cannot be cleared.
        assertInvalid("records[0].formed", "Band \"Japan\": formed is required (integer) and cannot be null") {
            try store.upsert("Band", #"{"name": "Japan", "formed": null}"#)
        }
    }

    func testARecordStagedTwiceIsMergedInOrder() throws {
        let store = try bandsStore()
        try store.stage("Band", #"{"name": "Japan", "formed": 1974, "hiatus": "1982-1989"}"#)
        try store.stage("Band", #"{"name": "Japan", "disbanded": 1991, "hiatus": null}"#)
        XCTAssertEqual(store.stagedEntities.count, 1)
        XCTAssertEqual(try store.applyStaged(), applyResult(inserted: 1))
        let band = try XCTUnwrap(store.record("Band", "Japan"))
        XCTAssertEqual(band["formed"], 1974)
        XCTAssertEqual(band["disbanded"], 1991)
        XCTAssertEqual(band["hiatus"], .null)
    }

    func testUpdatedRecordsAreRelinked() throws {
        let store = try bandsStore()
        try store.upsert("Band", japan, #"{"name": "Rain Tree Crow", "formed": 1989}"#)
        try store.upsert("Album", tinDrum)
        // JSONCache wired relationships only for new objects; here an update relinks.
        XCTAssertEqual(try store.upsert("Album", #"{"name": "Tin Drum", "band": "Rain Tree Crow"}"#), applyResult(updated: 1, linked: 1))
        XCTAssertEqual(try store.record("Band", "Japan")?["albums"], [])
        XCTAssertEqual(try store.record("Band", "Rain Tree Crow")?["albums"], ["Tin Drum"])
        // An update that does not mention the relationship leaves the link alone.
        try store.upsert("Album", #"{"name": "Tin Drum", "label": "Virgin Records"}"#)
        XCTAssertEqual(try store.record("Album", "Tin Drum")?["band"], "Rain Tree Crow")
        // An explicit null unlinks.
        try store.upsert("Album", #"{"name": "Tin Drum", "band": null}"#)
        XCTAssertEqual(try store.record("Album", "Tin Drum")?["band"], .null)
        XCTAssertEqual(try store.record("Band", "Rain Tree Crow")?["albums"], [])
    }

    func testAnUnresolvedReferenceFailsTheWholeApplyAndWritesNothing() throws {
        let store = try bandsStore()
        try store.stage("Band", japan)
        try store.stage("Album", tinDrum, #"{"name": "Quiet Life", "band": "Japn", "released": "1979-12-01T00:00:00Z", "label": "Hansa"}"#)
        try store.stage("BandMember", #"{"id": "m", "band": "Japan", "musician": "Mick Karn", "instruments": "bass", "joined": 1974}"#)
        assertStoreError(.unresolvedReferences([
            UnresolvedReference(entity: "Album", id: "Quiet Life", relationship: "band", destination: "Band", missingID: "Japn"),
            UnresolvedReference(entity: "BandMember", id: "m", relationship: "musician", destination: "Musician", missingID: "Mick Karn"),
        ])) { _ = try store.applyStaged() }
        XCTAssertEqual(try store.count("Band"), 0, "nothing written")
        XCTAssertEqual(try store.count("Album"), 0)
        // The batch stays: stage what was missing, fix the typo, apply again.
        XCTAssertEqual(store.stagedEntities.count, 4)
        try store.stage("Musician", #"{"name": "Mick Karn", "born": 1958, "instruments": "bass"}"#)
        try store.stage("Album", #"{"name": "Quiet Life", "band": "Japan"}"#)
        XCTAssertEqual(try store.applyStaged(), applyResult(inserted: 5, linked: 4))
    }

    func testOnMissingNullClearsUnresolvedReferences() throws {
        let store = try bandsStore()
        try store.stage("Album", tinDrum)
        try store.stage("Band", #"{"name": "Ultravox", "formed": 1974}"#)
        try store.stage("Album", #"{"name": "Vienna", "band": "Ultravox", "released": "1980-07-11T00:00:00Z", "label": "Chrysalis"}"#)
        XCTAssertEqual(try store.applyStaged(onMissing: .null), applyResult(inserted: 3, linked: 1, unresolved: 1))
        XCTAssertEqual(try store.record("Album", "Tin Drum")?["band"], .null)
        XCTAssertEqual(try store.record("Album", "Vienna")?["band"], "Ultravox")
    }

    func testANewRecordMustHaveEveryRequiredAttribute() throws {
        let store = try bandsStore()
        assertStoreError(.incompleteRecord(entity: "Album", id: "Quiet Life", missing: ["released", "label"])) {
            try store.upsert("Album", #"{"name": "Quiet Life"}"#)
        }
        // A partial record is fine for one that exists.
        try store.upsert("Album", tinDrum, onMissing: .null)
        XCTAssertEqual(try store.upsert("Album", #"{"name": "Tin Drum"}"#), applyResult(updated: 1))
    }

    func testUpsertLeavesTheStagedBatchAlone() throws {
        let store = try bandsStore()
        try store.stage("Album", tinDrum)
        XCTAssertEqual(try store.upsert("Band", japan), applyResult(inserted: 1))
        XCTAssertEqual(store.stagedEntities.count, 1)
        XCTAssertEqual(try store.applyStaged(), applyResult(inserted: 1, linked: 1))
    }

    func testDiscardDropsTheBatch() throws {
        let store = try bandsStore()
        try store.stage("Band", japan)
        try store.stage("Album", tinDrum)
        XCTAssertEqual(store.discardStaged(), 2)
        XCTAssertEqual(try store.applyStaged(), applyResult())
        XCTAssertEqual(try store.count("Band"), 0)
    }

    func testRecordsAreCheckedWhenStaged() throws {
        let store = try bandsStore()
        assertInvalid("records[0]", "a Band record needs its identifier \"name\"") { try store.stage("Band", #"{"formed": 1974}"#) }
        assertInvalid("records[0]", "expected a Band record (an object), got string") { try store.stage("Band", #""Japan""#) }
        assertInvalid("records[0].formed", "Band \"Japan\": expected integer, got 1974.5") {
            try store.stage("Band", #"{"name": "Japan", "formed": 1974.5}"#)
        }
        assertInvalid("records[0].band", "Album \"Tin Drum\": expected the identifier of a Band (string), got object") {
            try store.stage("Album", #"{"name": "Tin Drum", "band": {"name": "Japan"}}"#)
        }
        assertStoreError(.entityNotFound("Venue")) { try store.stage("Venue", #"{"id": 1}"#) }
        XCTAssertTrue(store.stagedEntities.isEmpty)
    }

    func testToManyKeysInRecordsSetTheInverse() throws {
        let store = try bandsStore()
        try store.upsert("Band", japan)
        try store.upsert("Album", tinDrum)
        // What entity.get produced can go back in: the list is what the inverse already says.
        let band = try XCTUnwrap(store.record("Band", "Japan"))
        try store.upsert([band], entity: "Band")
        XCTAssertEqual(try store.record("Band", "Japan")?["albums"], ["Tin Drum"])
        try store.upsert([band.settingAlbums([])], entity: "Band")
        XCTAssertEqual(try store.record("Album", "Tin Drum")?["band"], .null)
    }

    func testIntegerIdentifiersAndAllAttributeTypes() throws {
        let store = try makeStore()
        try store.define(#"""
            {"model": "Kinds", "entities": [
              {"name": "Thing", "attributes": {"id": "integer", "s": "string?", "i": "integer?", "n": "number?", "b": "bool?",
                                              "d": "date?", "bytes": "data?", "j": "json?"},
               "relationships": [{"name": "parent", "destination": "Thing"}]}]}
            """#)
        let full = #"{"id": 7, "s": "x", "i": -3, "n": 2.5, "b": true, "d": "2026-01-01T00:00:00Z", "bytes": "AAEC", "j": {"a": [1, null]}, "parent": null}"#
        XCTAssertEqual(try store.upsert("Thing", full, #"{"id": 8, "parent": 7}"#), applyResult(inserted: 2, linked: 1))
        XCTAssertEqual(try store.record("Thing", id: 7), json(full))
        XCTAssertEqual(try store.record("Thing", id: 8)?["parent"], 7)
        assertInvalid("records[0].bytes", "expected data (base64)") { try store.upsert("Thing", #"{"id": 9, "bytes": "*"}"#) }
        assertInvalid("records[0].parent", "expected the identifier of a Thing (integer), got string") {
            try store.upsert("Thing", #"{"id": 9, "parent": "7"}"#)
        }
    }

    func testIdentifiersCompareByBytes() throws {
        let store = try bandsStore()
        // "é" precomposed and decomposed: equal to Swift, two records to SQLite and to Larder.
        try store.upsert("Band", #"{"name": "Caf\u00e9", "formed": 1}"#, #"{"name": "Cafe\u0301", "formed": 2}"#)
        XCTAssertEqual(try store.count("Band"), 2)
    }
}

private extension JSON {
    func settingAlbums(_ albums: JSON) -> JSON {
        guard case .object(var o) = self else { return self }
        o["albums"] = albums
        return .object(o)
    }
}

/// Batches applied in a transaction that is rolled back are staged again, in order.
final class EntityRestageTests: StoreTestCase {
    func testAppendingABatchMergesLikeStaging() throws {
        let store = try makeStore()
        try store.define(bandsModel())
        var first = EntityBatch(), second = EntityBatch()
        try store.stage([json(#"{"name": "Japan", "formed": 1974}"#)], entity: "Band", into: &first)
        try store.stage([json(#"{"name": "Japan", "formed": 1975}"#), json(#"{"name": "Ultravox", "formed": 1974}"#)], entity: "Band", into: &second)
        first.append(second)
        XCTAssertEqual(first.count, 2, "Japan once, merged; Ultravox added")
        _ = try store.apply(first)
        XCTAssertEqual(try store.record("Band", "Japan")?["formed"], 1975, "the later batch wins")
    }

    func testACommitClearsWhatWasKeptForARollback() throws {
        let store = try makeStore()
        try store.define(bandsModel())
        _ = try store.stage("Band", #"{"name": "Japan", "formed": 1974}"#)
        _ = try store.applyStaged()
        XCTAssertEqual(store.entities.staging.applied.count, 1)
        try store.commit()
        XCTAssertTrue(store.entities.staging.applied.isEmpty)
        XCTAssertTrue(store.stagedEntities.isEmpty)
    }
}

final class EntityFailedCommitTests: StoreTestCase {
    func testABatchWhoseCommitFailsIsStagedAgainAndNothingIsWritten() throws {
        let store = try makeStore()
        try store.define(bandsModel())
        try store.commit()
        _ = try store.stage("Band", #"{"name": "Japan", "formed": 1974}"#)
        _ = try store.applyStaged()
        _ = try store.stage("Band", #"{"name": "Ultravox", "formed": 1974}"#)
        try refuseCommits(store, true)
        XCTAssertThrowsError(try store.commit())
        try refuseCommits(store, false)
        XCTAssertNil(try store.record("Band", "Japan"), "rolled back")
        XCTAssertEqual(store.stagedEntities.count, 2, "the applied batch is staged again, before what came after it")
        _ = try store.applyStaged()
        try store.commit()
        XCTAssertNotNil(try store.record("Band", "Japan"))
        XCTAssertNotNil(try store.record("Band", "Ultravox"))
    }
}
