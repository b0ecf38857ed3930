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

    func testAnAnswerThatWouldExplodeIsRefused() throws {
        // 20 albums, each including its band with its 20 albums, eight times over: 20^8 records.
        let store = try store(albums: 20)
        let path = Array(repeating: "albums.band", count: 8).joined(separator: ".")
        assertInvalid("include", "more than 100000 records") { _ = try store.record("Band", "b", include: [path]) }
        XCTAssertEqual(try store.ids("Album").count, 20, "the store is untouched and still answers")
    }
}
