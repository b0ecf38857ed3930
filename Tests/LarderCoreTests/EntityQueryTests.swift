import XCTest
import LarderJSON
@testable import LarderCore

/// entity.query and entity.count: every operator, AND, order, pages, and refusals.
final class EntityQueryTests: StoreTestCase {
    private func albumsStore() throws -> Store {
        let store = try makeStore()
        try store.define(bandsModel())
        try store.upsert("Band", japan, #"{"name": "Ultravox", "formed": 1974}"#)
        try store.upsert("Album",
                         #"{"name": "Adolescent Sex", "band": "Japan", "released": "1978-04-08T00:00:00Z", "label": "Hansa"}"#,
                         #"{"name": "Quiet Life", "band": "Japan", "released": "1979-12-01T00:00:00Z", "label": "Hansa"}"#,
                         polaroids, tinDrum,
                         #"{"name": "Vienna", "band": "Ultravox", "released": "1980-07-11T00:00:00Z", "label": "Chrysalis"}"#,
                         #"{"name": "Bootleg", "released": "1982-01-01T00:00:00Z", "label": "Unknown"}"#)
        return store
    }

    func testPlainValuesMeanEquality() throws {
        let store = try albumsStore()
        XCTAssertEqual(try store.ids("Album", where: #"{"label": "Hansa"}"#), ["Adolescent Sex", "Quiet Life"])
        XCTAssertEqual(try store.ids("Album", where: #"{"band": "Ultravox"}"#), ["Vienna"], "a to-one relationship by identifier")
        XCTAssertEqual(try store.ids("Album", where: #"{"band": null}"#), ["Bootleg"], "null means is null")
        XCTAssertEqual(try store.ids("Album", where: #"{"label": {"eq": "Virgin"}}"#), ["Gentlemen Take Polaroids", "Tin Drum"])
    }

    func testComparisons() throws {
        let store = try albumsStore()
        XCTAssertEqual(try store.ids("Album", where: #"{"released": {"gt": "1980-10-24T00:00:00Z"}}"#), ["Bootleg", "Tin Drum"])
        XCTAssertEqual(try store.ids("Album", where: #"{"released": {"gte": "1980-10-24T00:00:00Z"}}"#), ["Bootleg", "Gentlemen Take Polaroids", "Tin Drum"])
        XCTAssertEqual(try store.ids("Album", where: #"{"released": {"lt": "1979-12-01T00:00:00Z"}}"#), ["Adolescent Sex"])
        XCTAssertEqual(try store.ids("Album", where: #"{"released": {"lte": "1979-12-01T00:00:00Z"}}"#), ["Adolescent Sex", "Quiet Life"])
        XCTAssertEqual(try store.ids("Band", where: #"{"formed": {"gt": 1973, "lt": 1975}}"#), ["Japan", "Ultravox"], "operators in one object combine with AND")
    }

    func testNotEqualIncludesNulls() throws {
        let store = try albumsStore()
        XCTAssertEqual(try store.ids("Album", where: #"{"band": {"ne": "Japan"}}"#), ["Bootleg", "Vienna"])
        XCTAssertEqual(try store.ids("Band", where: #"{"disbanded": {"ne": 1991}}"#), ["Ultravox"])
        XCTAssertEqual(try store.ids("Album", where: #"{"band": {"ne": null}}"#).count, 5)
    }

    func testInLikeAndIsNull() throws {
        let store = try albumsStore()
        XCTAssertEqual(try store.ids("Album", where: #"{"label": {"in": ["Chrysalis", "Hansa", "Nobody"]}}"#), ["Adolescent Sex", "Quiet Life", "Vienna"])
        XCTAssertEqual(try store.ids("Album", where: #"{"label": {"in": []}}"#), [])
        XCTAssertEqual(try store.ids("Album", where: #"{"released": {"in": ["1980-07-11T00:00:00Z", "1981-11-13T09:00:00+09:00"]}}"#), ["Tin Drum", "Vienna"])
        XCTAssertEqual(try store.ids("Album", where: #"{"name": {"like": "Tin%"}}"#), ["Tin Drum"])
        XCTAssertEqual(try store.ids("Album", where: #"{"name": {"like": "%e_"}}"#), ["Adolescent Sex", "Bootleg"])
        XCTAssertEqual(try store.ids("Band", where: #"{"hiatus": {"isNull": true}}"#), ["Ultravox"])
        XCTAssertEqual(try store.ids("Band", where: #"{"hiatus": {"isNull": false}}"#), ["Japan"])
    }

    func testConditionsOnSeveralKeysCombineWithAnd() throws {
        let store = try albumsStore()
        XCTAssertEqual(try store.ids("Album", where: #"{"band": "Japan", "label": "Virgin", "released": {"lt": "1981-01-01T00:00:00Z"}}"#),
                       ["Gentlemen Take Polaroids"])
        XCTAssertEqual(try store.count("Album", where: json(#"{"band": "Japan", "label": "Hansa"}"#)), 2)
        XCTAssertEqual(try store.count("Album"), 6)
    }

    func testOrderAndPages() throws {
        let store = try albumsStore()
        XCTAssertEqual(try store.ids("Album", orderBy: ["-released"], limit: 2), ["Bootleg", "Tin Drum"])
        XCTAssertEqual(try store.ids("Album", orderBy: ["-released"], limit: 2, offset: 2), ["Gentlemen Take Polaroids", "Vienna"])
        XCTAssertEqual(try store.ids("Album", orderBy: ["label", "-name"]),
                       ["Vienna", "Quiet Life", "Adolescent Sex", "Bootleg", "Tin Drum", "Gentlemen Take Polaroids"])
        XCTAssertEqual(try store.ids("Album", offset: 5), ["Vienna"], "identifier order by default")
    }

    func testQueriesUseTheIndexes() throws {
        try requireSQLite("reads SQLite's query plans")
        let store = try albumsStore()
        let plan = try store.queryPlan("SELECT \"name\" FROM \"entity.Album\" WHERE \"band\" = 'Japan'")
        XCTAssertTrue(plan.contains("INDEX entity.Album.band"), plan)
        let byID = try store.queryPlan("SELECT \"label\" FROM \"entity.Album\" WHERE \"name\" = 'Tin Drum'")
        XCTAssertTrue(byID.contains("PRIMARY KEY"), byID)
    }

    func testRecordsComeWithIncludes() throws {
        let store = try albumsStore()
        let q = RecordQuery(conditions: json(#"{"name": "Vienna"}"#))
        let records = try store.query("Album", q, include: ["band"])
        XCTAssertEqual(records.first?["band"]?["name"], "Ultravox")
        XCTAssertEqual(records.first?["band"]?["albums"], ["Vienna"])
    }

    func testBadConditionsAreRefused() throws {
        let store = try albumsStore()
        assertUnknownMember("where.released.gtt", suggestion: "gt") {
            _ = try store.ids("Album", where: #"{"released": {"gtt": "1980-01-01T00:00:00Z"}}"#)
        }
        assertInvalid("where.nmae", "Album has no attribute or relationship \"nmae\" (did you mean name?)") { _ = try store.ids("Album", where: #"{"nmae": "Vienna"}"#) }
        assertInvalid("where.colour", "Album has no attribute or relationship \"colour\"") { _ = try store.ids("Album", where: #"{"colour": "red"}"#) }
        assertInvalid("where.albums", "albums is a to-many relationship; query Album by band instead") {
            _ = try store.ids("Band", where: #"{"albums": "Tin Drum"}"#)
        }
        assertInvalid("where.formed.like", "like compares strings; formed is integer") { _ = try store.ids("Band", where: #"{"formed": {"like": "19%"}}"#) }
        assertInvalid("where.label.in", "in needs an array of values, got string") { _ = try store.ids("Album", where: #"{"label": {"in": "Virgin"}}"#) }
        assertInvalid("where.label.in[1]", "null never equals anything; use isNull") { _ = try store.ids("Album", where: #"{"label": {"in": ["a", null]}}"#) }
        assertInvalid("where.hiatus.isNull", "isNull needs true or false") { _ = try store.ids("Band", where: #"{"hiatus": {"isNull": 1}}"#) }
        assertInvalid("where.formed.gt", "gt needs a value, not null") { _ = try store.ids("Band", where: #"{"formed": {"gt": null}}"#) }
        assertInvalid("where.formed", "an operator object needs at least one of") { _ = try store.ids("Band", where: #"{"formed": {}}"#) }
        assertInvalid("where.formed", "expected integer, got string") { _ = try store.ids("Band", where: #"{"formed": "1974"}"#) }
        assertInvalid("where", "expected an object") { _ = try store.ids("Band", where: #"["formed"]"#) }
        assertInvalid("orderBy[0]", "Album has no attribute or relationship \"year\"") { _ = try store.ids("Album", orderBy: ["-year"]) }
        assertStoreError(.entityNotFound("Venue")) { _ = try store.count("Venue") }
    }
}

extension Store {
    /// SQLite's plan for a statement, its detail lines joined.
    func queryPlan(_ sql: String) throws -> String {
        let s = try database.statement("EXPLAIN QUERY PLAN " + sql)
        defer { s.reset() }
        var lines: [String] = []
        while try s.step() { lines.append(try s.string(3)) }
        return lines.joined(separator: "\n")
    }
}
