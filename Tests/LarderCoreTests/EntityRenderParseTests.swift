import XCTest
import LarderJSON
@testable import LarderCore
import LarderStorage

/// `render` (model form → JSON form) and `parse` (JSON form → model form):
/// what `get` returns after storing, without the store, and back.
final class EntityRenderParseTests: StoreTestCase {
    /// Every attribute type, a self-reference and integer identifiers.
    private func kindsModel(dateFormat: String) -> String {
        #"""
        {"model": "Kinds", "dateFormat": "\#(dateFormat)", "reservedWords": ["type"], "entities": [
          {"name": "Thing", "attributes": {"id": "integer", "s": "string?", "i": "integer?", "n": "number?", "b": "bool?",
                                           "d": "date?", "bytes": "data?", "j": "json?", "thingType": "string?"},
           "relationships": [{"name": "parent", "destination": "Thing", "inverse": "children"},
                             {"name": "children", "destination": "Thing", "toMany": true}]}
        ]}
        """#
    }

    /// Backend JSON for the kinds model, dates written in `format`, with the
    /// liberties input may take (1e3, 2.50, offsets, fractions).
    private func kindsRecords(dateFormat: String) -> [String] {
        let (d1, d2): (String, String)
        switch dateFormat {
        case "iso8601Basic": (d1, d2) = (#""20260101T090000.5+0900""#, #""19700101T000000Z""#)
        case "epochSeconds": (d1, d2) = ("1767225600.5", "-86400")
        default: (d1, d2) = (#""2026-01-01 09:00:00.5+09:00""#, #""1969-12-31T00:00:00Z""#)
        }
        return [
            #"{"id": 7, "s": "x", "i": 1e3, "n": 2.50, "b": true, "d": \#(d1), "bytes": "AAEC", "j": {"a": [1, 2.50, null]}, "type": "box"}"#,
            #"{"id": 8, "parent": 7, "d": \#(d2), "b": false, "j": "text", "n": -0.125}"#,
            #"{"id": 9, "parent": 7, "s": "é", "thingType": "crate"}"#,
        ]
    }

    // MARK: - What render writes

    func testRenderWritesAStructAsTheBackendsJSON() throws {
        let store = try makeStore(inMemory: true)
        try store.define(bandsModel())
        // JSONCache's BandInfo struct: names and Swift types.
        let u2 = json(#"{"name": "U2", "bandDescription": "Dublin boys", "formed": 1976, "otherNames": "Passengers"}"#)
        XCTAssertEqual(try store.render(u2, entity: "Band").description,
                       #"{"name":"U2","formed":1976,"disbanded":null,"hiatus":null,"description":"Dublin boys","other_names":"Passengers","albums":[],"members":[]}"#)
    }

    func testRenderWritesDatesInTheModelsFormat() throws {
        for (format, written) in [("iso8601", #""1981-11-13T00:00:00.500Z""#), ("iso8601Basic", #""19811113T000000.500Z""#),
                                  ("epochSeconds", "374457600.5")] {
            let store = try makeStore(inMemory: true)
            try store.define(bandsModel(dateFormat: format))
            let album = json(#"{"name": "Tin Drum", "released": "1981-11-13T09:00:00.5+09:00", "label": "Virgin", "band": "Japan"}"#)
            XCTAssertEqual(try store.render(album, entity: "Album").description,
                           #"{"name":"Tin Drum","released":\#(written),"label":"Virgin","band":"Japan"}"#, format)
            let back = try store.parse(json(#"{"name": "Tin Drum", "released": \#(written)}"#), entity: "Album")
            XCTAssertEqual(back.description, #"{"name":"Tin Drum","released":"1981-11-13T00:00:00.500Z"}"#, format)
        }
    }

    func testParseReturnsNamesAndOnlyTheMembersGiven() throws {
        let store = try makeStore(inMemory: true)
        try store.define(bandsModel())
        let parsed = try store.parse(json(#"{"other_names": "Rain Tree Crow", "name": "Japan", "description": null}"#), entity: "Band")
        XCTAssertEqual(parsed.description, #"{"name":"Japan","bandDescription":null,"otherNames":"Rain Tree Crow"}"#,
                       "members in the model's order; absent stays absent, null stays null")
    }

    // MARK: - Differential: render against storing and reading back

    /// For every record of the test models: `get` after `upsert` of backend
    /// JSON equals `render(parse(json))`, byte for byte; `render(r)` stored
    /// reads back as itself; `parse(render(r))` is `r`.
    func testRenderIsWhatGetReturnsAfterStoring() throws {
        for casing in ["snake_case", "camelCase"] {
            for format in ["iso8601", "iso8601Basic", "epochSeconds"] {
                let store = try makeStore(inMemory: true)
                try store.define(kindsModel(dateFormat: format))
                try store.define(bandsModel(casing: casing, dateFormat: format))
                var records: [(entity: String, json: JSON)] = kindsRecords(dateFormat: format).map { ("Thing", json($0)) }
                let released = format == "epochSeconds" ? "374457600" : format == "iso8601Basic" ? #""19811113T000000Z""# : #""1981-11-13T00:00:00Z""#
                let otherNames = casing == "snake_case" ? "other_names" : "otherNames"
                records += [
                    ("Band", json(#"{"name": "Japan", "formed": 1974, "disbanded": 1991, "description": "glam", "\#(otherNames)": "Rain Tree Crow"}"#)),
                    ("Musician", json(sylvian)),
                    ("BandMember", json(sylvianInJapan)),
                    ("Album", json(#"{"name": "Tin Drum", "band": "Japan", "released": \#(released), "label": "Virgin"}"#)),
                    ("Album", json(#"{"name": "Assemblage", "band": "Japan", "released": \#(released), "label": "Hansa"}"#)),
                ]
                let context = "\(casing) \(format)"
                for (entity, record) in records { _ = try store.upsert([record], entity: entity) }
                for (entity, record) in records {
                    let (_, definition) = try store.entities.entity(entity)
                    let id = try XCTUnwrap(record[definition.attributeKeys[definition.identifierIndex]])
                    let stored = try XCTUnwrap(store.record(entity, id: id))
                    let model = try store.parse(record, entity: entity)
                    // The backend's record, parsed, then rendered: what get returns (its to-many lists aside, which only the store knows).
                    var rendered = try store.render(model, entity: entity)
                    rendered = withToManyOf(stored, in: rendered, definition)
                    XCTAssertEqual(rendered.description, stored.description, "\(context) \(entity) \(id)")
                    // The stored record, parsed and rendered again, is itself; parsing its rendering gives the parse back.
                    let whole = try store.parse(stored, entity: entity)
                    XCTAssertEqual(try store.render(whole, entity: entity).description, stored.description, "\(context) \(entity) \(id)")
                    XCTAssertEqual(try store.parse(store.render(whole, entity: entity), entity: entity).description, whole.description)
                    // Storing a rendering reads back as that rendering.
                    _ = try store.upsert([stored], entity: entity)
                    XCTAssertEqual(try store.record(entity, id: id)?.description, stored.description, "\(context) \(entity) \(id)")
                }
                // With nested records: get with include, parsed, renders as itself.
                let nested = try XCTUnwrap(store.record("Band", id: "Japan", include: ["albums", "members.musician"]))
                let parsed = try store.parse(nested, entity: "Band")
                XCTAssertEqual(try store.render(parsed, entity: "Band").description, nested.description, context)
                let family = try XCTUnwrap(store.record("Thing", id: 7, include: ["children.parent"]))
                XCTAssertEqual(try store.render(store.parse(family, entity: "Thing"), entity: "Thing").description,
                               family.description, context)
            }
        }
    }

    /// `rendered` with the to-many relationships `stored` has: those come from the store.
    private func withToManyOf(_ stored: JSON, in rendered: JSON, _ entity: EntityDefinition) -> JSON {
        guard var o = rendered.objectValue else { return rendered }
        for (r, relationship) in entity.relationships.enumerated() where relationship.toMany {
            let key = entity.relationshipKeys[r]
            o.members = o.members.map { $0.key == key ? (key, stored[key] ?? .null) : $0 }
        }
        return .object(o)
    }

    // MARK: - Relationships

    func testRecordsNestedInAToManyRelationshipReferBackToTheirRecord() throws {
        let store = try makeStore(inMemory: true)
        try store.define(bandsModel())
        let band = json(#"""
            {"name": "Japan", "formed": 1974,
             "albums": [{"name": "Tin Drum", "released": "1981-11-13T00:00:00Z", "label": "Virgin"},
                        {"name": "Gentlemen Take Polaroids", "released": "1980-10-24T00:00:00Z", "label": "Virgin", "band": "Japan"}]}
            """#)
        let rendered = try store.render(band, entity: "Band")
        XCTAssertEqual(rendered["albums"]?.description,
                       #"[{"name":"Gentlemen Take Polaroids","released":"1980-10-24T00:00:00Z","label":"Virgin","band":"Japan"},{"name":"Tin Drum","released":"1981-11-13T00:00:00Z","label":"Virgin","band":"Japan"}]"#,
                       "in identifier order, each referring back to the band")
        let parsed = try store.parse(json(#"{"name": "Japan", "albums": [{"name": "Tin Drum"}]}"#), entity: "Band")
        XCTAssertEqual(parsed.description, #"{"name":"Japan","albums":[{"name":"Tin Drum"}]}"#, "parse adds nothing")

        let elsewhere = json(#"{"name": "Japan", "formed": 1974, "albums": [{"name": "Vienna", "released": "1980-07-11T00:00:00Z", "label": "Chrysalis", "band": "Ultravox"}]}"#)
        assertInvalid("record.albums[0].band", #"Album "Vienna" is nested in albums of Band "Japan", so its band must be "Japan", not "Ultravox""#) {
            _ = try store.render(elsewhere, entity: "Band")
        }
        assertInvalid("json.albums[0].band", "must be \"Japan\", not null") {
            _ = try store.parse(json(#"{"name": "Japan", "albums": [{"name": "Vienna", "band": null}]}"#), entity: "Band")
        }
    }

    func testToOneRelationshipsTakeAnIdentifierOrANestedRecord() throws {
        let store = try makeStore(inMemory: true)
        try store.define(bandsModel())
        let member = json(#"""
            {"id": "m1", "instruments": "vocals", "joined": 1974, "band": "Japan",
             "musician": {"name": "David Sylvian", "born": 1958, "instruments": "Vocals", "bands": ["m1"]}}
            """#)
        XCTAssertEqual(try store.render(member, entity: "BandMember").description,
                       #"{"id":"m1","instruments":"vocals","joined":1974,"left":null,"band":"Japan","musician":{"name":"David Sylvian","born":1958,"died":null,"instruments":"Vocals","bands":["m1"]}}"#)
        assertInvalid("record.band", #"BandMember "m1": expected the identifier of a Band (string), got integer"#) {
            _ = try store.render(json(#"{"id": "m1", "instruments": "v", "joined": 1, "band": 7}"#), entity: "BandMember")
        }
        assertInvalid("record.musician", "David Sylvian\" lacks required attributes: instruments") {
            _ = try store.render(json(#"{"id": "m1", "instruments": "v", "joined": 1, "musician": {"name": "David Sylvian", "born": 1958}}"#),
                                 entity: "BandMember")
        }
    }

    func testToManyRelationshipsAreArraysOfOneKindWithoutRepeats() throws {
        let store = try makeStore(inMemory: true)
        try store.define(bandsModel())
        XCTAssertEqual(try store.render(json(#"{"name": "Japan", "formed": 1974, "albums": ["Tin Drum", "Assemblage"]}"#), entity: "Band")["albums"],
                       json(#"["Assemblage", "Tin Drum"]"#))
        assertInvalid("json.albums", #"Band "Japan": expected an array of Album identifiers or records, got string"#) {
            _ = try store.parse(json(#"{"name": "Japan", "albums": "Tin Drum"}"#), entity: "Band")
        }
        assertInvalid("json.albums[1]", #"Band "Japan" lists Album "Tin Drum" twice"#) {
            _ = try store.parse(json(#"{"name": "Japan", "albums": ["Tin Drum", "Tin Drum"]}"#), entity: "Band")
        }
        assertInvalid("json.albums[1]", "expected a Album record, as the first element is, got string") {
            _ = try store.parse(json(#"{"name": "Japan", "albums": [{"name": "Tin Drum"}, "Vienna"]}"#), entity: "Band")
        }
        assertInvalid("json.albums[0]", "expected the identifier of a Album, as the first element is, got null") {
            _ = try store.parse(json(#"{"name": "Japan", "albums": [null]}"#), entity: "Band")
        }
    }

    // MARK: - Errors

    /// parse checks a record as stage does: same messages, under `json` instead of `records[0]`.
    func testParseRefusesWhatStageRefusesWithTheSameMessages() throws {
        let store = try makeStore(inMemory: true)
        try store.define(bandsModel())
        let bad: [(String, String)] = [
            ("Band", #"{"name": "Japan", "formed": null}"#),
            ("Band", #"{"name": "Japan", "formed": "1974"}"#),
            ("Band", #"{"name": "Japan", "formd": 1974}"#),
            ("Band", #"{"formed": 1974}"#),
            ("Band", #"["Japan"]"#),
            ("Album", #"{"name": "Quiet Life", "released": "1979-13-01T00:00:00Z"}"#),
            ("Album", #"{"name": "Quiet Life", "released": 312940800}"#),
            ("Album", #"{"name": "Quiet Life", "band": 1}"#),
            ("Thing", "{}"),
        ]
        for (entity, record) in bad {
            var staged: StoreError?
            do { try store.stage(entity, record) } catch { staged = error as? StoreError }
            var parsed: StoreError?
            do { _ = try store.parse(json(record), entity: entity) } catch { parsed = error }
            guard case .invalidArgument(let f1, let r1)? = staged, case .invalidArgument(let f2, let r2)? = parsed else {
                if case .entityNotFound? = staged, case .entityNotFound? = parsed { continue }
                XCTFail("\(record): stage \(String(describing: staged)), parse \(String(describing: parsed))")
                continue
            }
            XCTAssertEqual(f2, f1.replacingOccurrences(of: "records[0]", with: "json"), record)
            XCTAssertEqual(r2, r1, record)
        }
        XCTAssertEqual(store.discardStaged(), 0)
    }

    func testRenderTakesNamesAndRFC3339DatesAndRefusesIncompleteRecords() throws {
        let store = try makeStore(inMemory: true)
        try store.define(bandsModel(dateFormat: "epochSeconds"))
        assertInvalid("record.released", #"Album "Tin Drum": expected a date in iso8601 format (such as 2000-08-22T12:28:00Z), got 374457600"#) {
            _ = try store.render(json(#"{"name": "Tin Drum", "released": 374457600, "label": "Virgin"}"#), entity: "Album")
        }
        assertInvalid("record", #"Album "Quiet Life" lacks required attributes: released, label"#) {
            _ = try store.render(json(#"{"name": "Quiet Life", "band": "Japan"}"#), entity: "Album")
        }
        assertInvalid("record.otherNamez", "Band has no attribute or relationship \"otherNamez\" (did you mean otherNames?)") {
            _ = try store.render(json(#"{"name": "Japan", "formed": 1974, "otherNamez": "x"}"#), entity: "Band")
        }
        XCTAssertThrowsError(try store.render(json("{}"), entity: "Venue")) {
            guard case StoreError.entityNotFound("Venue") = $0 else { return XCTFail("\($0)") }
        }
    }

    func testNeitherReadsNorWritesRecords() throws {
        let store = try makeStore()
        try store.define(bandsModel())
        try store.commit()
        try store.stage("Band", japan)
        _ = try store.render(json(#"{"name": "U2", "formed": 1976, "albums": [{"name": "Boy", "released": "1980-10-20T00:00:00Z", "label": "Island"}]}"#),
                             entity: "Band")
        _ = try store.parse(json(japan), entity: "Band")
        XCTAssertFalse(store.hasPendingWrites)
        XCTAssertEqual(try store.count("Band"), 0)
        XCTAssertEqual(try store.count("Album"), 0)
        XCTAssertEqual(store.discardStaged(), 1, "the staged batch is left as it was")
    }
}
