import XCTest
import LarderJSON
@testable import LarderCore

/// Includes may follow relationship cycles: a short request must not be able
/// to ask for an unbounded answer or an unbounded recursion.
final class EntityIncludeLimitTests: StoreTestCase {
    private let model = #"{"model": "cyclic", "entities": [{"name": "Band", "attributes": {"id": "string"}, "relationships": [{"name": "albums", "destination": "Album", "toMany": true, "inverse": "band"}]}, {"name": "Album", "attributes": {"id": "string"}, "relationships": [{"name": "band", "destination": "Band", "inverse": "albums"}]}]}"#

    private func store(albums: Int) throws -> Store {
        let store = try makeStore()
        try store.define(model)
        _ = try store.upsert("Band", #"{"id": "b"}"#)
        for k in 0..<albums { _ = try store.upsert("Album", #"{"id": "a\#(k)", "band": "b"}"#) }
        return store
    }

    func testALongIncludePathIsRefusedNotWalked() throws {
        let store = try store(albums: 1)
        let path = Array(repeating: "albums.band", count: 25_000).joined(separator: ".")
        assertInvalid("include[0]", "at most 16") { _ = try store.record("Band", "b", include: [path]) }
    }

    func testACycleWithinTheDepthLimitRenders() throws {
        let store = try store(albums: 2)
        let record = try XCTUnwrap(store.record("Band", "b", include: ["albums.band.albums"]))
        XCTAssertEqual(record["albums"]?.arrayValue?.first?["band"]?["albums"]?.arrayValue?.count, 2)
    }

    /// The bound is checked before anything is rendered, by counting: the
    /// count must be exactly what rendering would hold — records asked for
    /// twice, missing ones, to-one and to-many includes, records without
    /// relations — or it would refuse answers it should give.
    func testTheSizeIsCountedExactlyBeforeAnythingIsRendered() throws {
        let store = try store(albums: 3)
        _ = try store.upsert("Album", #"{"id": "loose"}"#)
        _ = try store.upsert("Band", #"{"id": "empty"}"#)
        let (model, band) = try store.entities.entity("Band")
        let ids: [ColumnValue] = [.text("b"), .text("empty"), .text("b"), .text("missing")]
        for paths in [["albums"], ["albums.band"], ["albums.band.albums", "albums"], ["albums.band.albums.band.albums"]] {
            let inclusion = try Inclusion(paths: paths, from: band, in: model)
            let renderer = EntityRenderer(database: store.database, model: model)
            let rendered = try ids.compactMap { try renderer.record(band, id: $0, include: inclusion) }
            let records = rendered.map(Self.records).reduce(0, +)
            XCTAssertNoThrow(try EntityRenderer(database: store.database, model: model, maxRecords: records)
                .refuseIfLarger(band, ids: ids, include: inclusion), "\(paths): \(records) records")
            assertInvalid("include", "more than") {
                try EntityRenderer(database: store.database, model: model, maxRecords: records - 1)
                    .refuseIfLarger(band, ids: ids, include: inclusion)
            }
        }
    }

    /// The records in an answer: every object in it (these records' attributes are strings).
    private static func records(_ json: JSON) -> Int {
        switch json {
        case .object(let o): 1 + o.members.map { records($0.value) }.reduce(0, +)
        case .array(let a): a.map(records).reduce(0, +)
        default: 0
        }
    }

    func testAnAnswerThatWouldExplodeIsRefused() throws {
        // 20 albums, each including its band with its 20 albums, eight times over: 20^8 records.
        let store = try store(albums: 20)
        let path = Array(repeating: "albums.band", count: 8).joined(separator: ".")
        assertInvalid("include", "more than 100000 records") { _ = try store.record("Band", "b", include: [path]) }
        XCTAssertEqual(try store.ids("Album").count, 20, "the store is untouched and still answers")
    }
}
