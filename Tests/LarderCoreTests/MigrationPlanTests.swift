import XCTest
import LarderJSON
@testable import LarderCore
import LarderStorage

/// `ObjectUpgrader.plan`: which hops lead from a stored version to the newest.
final class MigrationPlanTests: StoreTestCase {
    private func plan(_ store: Store, _ type: String, from: String) throws -> [ObjectUpgrader.Hop] {
        try ObjectUpgrader(objects: store.objects, key: "k", answers: [:]).plan(type: type, from: ver(from), versions: store.versions(of: type))
    }

    private func route(_ hops: [ObjectUpgrader.Hop]) -> [String] {
        hops.map { "\($0.from.text)→\($0.to.text)" }
    }

    func testChainsAcrossSeveralVersions() throws {
        let store = try makeStore()
        try store.register("T", "1", #"{"fields":{"a":"integer"}}"#)
        try store.register("T", "2", #"{"fields":{"b":"integer"},"migrations":[{"from":"1","steps":[{"op":"rename","from":"a","to":"b"}]}]}"#)
        try store.register("T", "3", #"{"fields":{"b":"string"},"migrations":[{"from":"2","steps":[{"op":"convert","field":"b","to":"string"}]}]}"#)
        try store.register("T", "4", #"{"fields":{"c":"string"},"migrations":[{"from":"3","steps":[{"op":"rename","from":"b","to":"c"}]}]}"#)
        let hops = try plan(store, "T", from: "1")
        XCTAssertEqual(route(hops), ["1→2", "2→3", "3→4"])
        XCTAssertEqual(hops.map(\.steps), [
            [.rename(from: "a", to: "b")],
            [.convert(field: "b", to: .string, from: nil)],
            [.rename(from: "b", to: "c")],
        ])
        XCTAssertEqual(route(try plan(store, "T", from: "2")), ["2→3", "3→4"])
        XCTAssertEqual(route(try plan(store, "T", from: "3")), ["3→4"])
        XCTAssertEqual(route(try plan(store, "T", from: "4")), [], "the newest version needs no hop")
        XCTAssertEqual(route(try plan(store, "T", from: "4.0")), [])
    }

    func testADirectMigrationBeatsAChain() throws {
        let store = try makeStore()
        try store.register("T", "1", #"{"fields":{"a":"integer"}}"#)
        try store.register("T", "2", #"{"fields":{"b":"integer"},"migrations":[{"from":"1","steps":[{"op":"rename","from":"a","to":"b"}]}]}"#)
        try store.register("T", "3", #"{"fields":{"c":"integer"},"migrations":[{"from":"2","steps":[{"op":"rename","from":"b","to":"c"}]}]}"#)
        try store.register("T", "4", #"""
            {"fields":{"d":"integer"},"migrations":[
              {"from":"3","steps":[{"op":"rename","from":"c","to":"d"}]},
              {"from":["1"],"steps":[{"op":"rename","from":"a","to":"d"}]}]}
            """#)
        let hops = try plan(store, "T", from: "1")
        XCTAssertEqual(route(hops), ["1→4"])
        XCTAssertEqual(hops[0].steps, [.rename(from: "a", to: "d")])
        // From 2 there is no shortcut.
        XCTAssertEqual(route(try plan(store, "T", from: "2")), ["2→3", "3→4"])
    }

    func testAMigrationFromSeveralVersionsServesEach() throws {
        let store = try makeStore()
        try store.register("T", "1", #"{"fields":{"a":"integer"}}"#)
        try store.register("T", "2", #"{"fields":{"a":"string"},"migrations":[{"from":"1","steps":[{"op":"convert","field":"a","to":"string"}]}]}"#)
        try store.register("T", "3", #"{"fields":{"b":"string"},"migrations":[{"from":["1","2"],"steps":[{"op":"rename","from":"a","to":"b"}]}]}"#)
        XCTAssertEqual(route(try plan(store, "T", from: "1")), ["1→3"])
        XCTAssertEqual(route(try plan(store, "T", from: "2")), ["2→3"])
    }

    func testAnAddOnlyVersionNeedsNoMigration() throws {
        let store = try makeStore()
        try store.register("Note", "1", #"{"fields":{"text":"string","stars":"integer"}}"#)
        try store.register("Note", "2", #"{"fields":{"text":"string","stars":"integer","tags":{"optional":{"array":"string"}},"pinned":{"type":"bool","default":false}}}"#)
        try store.register("Note", "3", #"{"fields":{"body":"string","stars":"integer","tags":{"optional":{"array":"string"}},"pinned":"bool"},"migrations":[{"from":"2","steps":[{"op":"rename","from":"text","to":"body"}]}]}"#)
        let hops = try plan(store, "Note", from: "1")
        XCTAssertEqual(route(hops), ["1→2", "2→3"])
        XCTAssertEqual(hops[0].steps, [], "an automatic hop has no steps")
        XCTAssertEqual(hops[1].steps, [.rename(from: "text", to: "body")])
        XCTAssertTrue(ObjectUpgrader.onlyAdds(from: try XCTUnwrap(store.schema(of: "Note", version: ver("1"))),
                                        to: try XCTUnwrap(store.schema(of: "Note", version: ver("2")))))
    }

    func testAnUnchangedVersionNeedsNoMigration() throws {
        let store = try makeStore()
        try store.register("T", "1", #"{"fields":{"a":"integer"}}"#)
        try store.register("T", "1.1", #"{"fields":{"a":"integer"}}"#)
        try store.register("T", "1.2", #"{"fields":{"a":"integer","b":"string?"}}"#)
        XCTAssertEqual(route(try plan(store, "T", from: "1")), ["1→1.1", "1.1→1.2"])
    }

    func testNoAutomaticHopWhenATypeChanges() throws {
        let store = try makeStore()
        try store.register("Log", "1", #"{"fields":{"line":"string","level":"integer"}}"#)
        try store.register("Log", "2", #"{"fields":{"line":"string","level":"string"}}"#)
        assertStoreError(.migrationMissing(type: "Log", from: "1", to: "2", fields: ["level (integer → string)"])) {
            _ = try self.plan(store, "Log", from: "1")
        }
        // Making a field optional is a type change too.
        try store.register("Log", "3", #"{"fields":{"line":"string?","level":"string"}}"#)
        assertStoreError(.migrationMissing(type: "Log", from: "2", to: "3", fields: ["line (string → {\"optional\":\"string\"})"])) {
            _ = try self.plan(store, "Log", from: "2")
        }
    }

    func testNoAutomaticHopWhenARequiredFieldIsAddedOrAFieldRemoved() throws {
        let store = try makeStore()
        try store.register("T", "1", #"{"fields":{"a":"string","b":"integer","c":"bool"}}"#)
        try store.register("T", "2", #"{"fields":{"b":"number","c":"bool","d":"string","e":"string?","f":{"type":"integer","default":0}}}"#)
        assertStoreError(.migrationMissing(type: "T", from: "1", to: "2",
                                           fields: ["a (removed)", "b (integer → number)", "d (added, required)"])) {
            _ = try self.plan(store, "T", from: "1")
        }
        XCTAssertEqual(ObjectUpgrader.differences(from: try XCTUnwrap(store.schema(of: "T", version: ver("2"))),
                                            to: try XCTUnwrap(store.schema(of: "T", version: ver("1")))),
                       ["b (number → integer)", "d (removed)", "e (removed)", "f (removed)", "a (added, required)"])
    }

    func testAGapFurtherAlongIsReportedWhereItIs() throws {
        let store = try makeStore()
        try store.register("T", "1", #"{"fields":{"a":"integer"}}"#)
        try store.register("T", "2", #"{"fields":{"a":"integer","b":"integer"},"migrations":[{"from":"1","steps":[{"op":"set","field":"b","value":0}]}]}"#)
        try store.register("T", "3", #"{"fields":{"a":"string","b":"integer"}}"#)
        try store.register("T", "4", #"{"fields":{"a":"string"},"migrations":[{"from":"3","steps":[{"op":"remove","field":"b"}]}]}"#)
        // The chain reaches 2; what is missing is 2 → 3, and that is what the error names.
        let gap = StoreError.migrationMissing(type: "T", from: "2", to: "3", fields: ["a (integer → string)"])
        assertStoreError(gap) { _ = try self.plan(store, "T", from: "1") }
        assertStoreError(gap) { _ = try self.plan(store, "T", from: "2") }
        XCTAssertEqual(route(try plan(store, "T", from: "3")), ["3→4"])

        // Through a read, too, and nothing is lost.
        let cache = try openCache(store)
        let stored = StoredObject(type: "T", version: ver("1"), value: ["a": 1])
        try cache.set([Cache.Write(key: EntryKey(group: "g", key: "k"), kind: .object, bytes: stored.json.encoded, ttl: nil)])
        assertStoreError(gap) { _ = try cache.readObject("k") }
        XCTAssertEqual(try cache.rawBytes("k"), stored.json.encoded)
    }

    func testAStoredVersionThatIsNoLongerRegistered() throws {
        let store = try makeStore()
        try store.register("T", "2", #"{"fields":{"a":"string"}}"#)
        assertStoreError(.migrationMissing(type: "T", from: "1", to: "2", fields: ["(no schema is registered for 1)"])) {
            _ = try self.plan(store, "T", from: "1")
        }
    }

    func testAGapRightAfterTheStoredVersionIsReported() throws {
        let store = try makeStore()
        try store.register("T", "1", #"{"fields":{"a":"string"}}"#)
        try store.register("T", "2", #"{"fields":{"b":"string"},"migrations":[{"from":"1","steps":[{"op":"rename","from":"a","to":"b"}]}]}"#)
        try store.register("T", "3", #"{"fields":{"c":"string"}}"#)
        assertStoreError(.migrationMissing(type: "T", from: "2", to: "3", fields: ["b (removed)", "c (added, required)"])) {
            _ = try self.plan(store, "T", from: "2")
        }
    }
}
