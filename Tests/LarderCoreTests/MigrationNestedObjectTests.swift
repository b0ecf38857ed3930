import XCTest
import LarderJSON
@testable import LarderCore

/// Nested objects keep their own type and version: they are upgraded when the
/// object holding them is read, and read as plain maps once their type is gone.
final class MigrationNestedObjectTests: ObjectStoreTestCase {
    override func prepare() throws {
        try store.register("Bar", "1", #"{"fields":{"s":"string","date":"date"}}"#)
    }

    private let barV2 = #"{"fields":{"text":"string","date":"date"},"migrations":[{"from":"1","steps":[{"op":"rename","from":"s","to":"text"}]}]}"#

    func testANestedRefIsUpgradedWhenItsHolderIsRead() throws {
        try store.register("Holder", "1", #"{"fields":{"name":"string","bar":{"ref":"Bar"}}}"#)
        try cache.putObject("h", "Holder", #"{"name":"h","bar":{"s":"hi","date":"2016-05-04T03:02:01Z"}}"#)
        try store.register("Bar", "2", barV2)

        let read = try cache.readObject("h")
        let migrated = try XCTUnwrap(read.migratedObject, "\(read)")
        XCTAssertEqual(read.migratedFrom?.text, "1", "the holder itself stayed at 1")
        XCTAssertEqual(migrated.version.text, "1")
        XCTAssertEqual(migrated.plainValue, json(#"{"name":"h","bar":{"text":"hi","date":"2016-05-04T03:02:01Z"}}"#))
        let bar = try XCTUnwrap(StoredObject(migrated.value["bar"]!))
        XCTAssertEqual(bar.type, "Bar")
        XCTAssertEqual(bar.version.text, "2")
        // Written back, so the next read is current.
        XCTAssertEqual(try cache.readObject("h").currentObject?.json, migrated.json)
    }

    func testNestedRefsInArraysAndMapsAreUpgraded() throws {
        try store.register("Holder", "1", #"{"fields":{"list":{"array":{"ref":"Bar"}},"byName":{"map":{"ref":"Bar"}}}}"#)
        try cache.putObject("h", "Holder", #"""
            {"list":[{"s":"a","date":"2020-01-01T00:00:00Z"},{"s":"b","date":"2020-01-02T00:00:00Z"}],
             "byName":{"x":{"s":"c","date":"2020-01-03T00:00:00Z"}}}
            """#)
        try store.register("Bar", "2", barV2)
        let migrated = try XCTUnwrap(cache.readObject("h").migratedObject)
        XCTAssertEqual(migrated.plainValue, json(#"""
            {"list":[{"text":"a","date":"2020-01-01T00:00:00Z"},{"text":"b","date":"2020-01-02T00:00:00Z"}],
             "byName":{"x":{"text":"c","date":"2020-01-03T00:00:00Z"}}}
            """#))
        XCTAssertEqual(StoredObject(migrated.value["list"]!.arrayValue![1])?.version.text, "2")
        XCTAssertEqual(StoredObject(migrated.value["byName"]!["x"]!)?.version.text, "2")
    }

    func testHolderAndNestedTypeBothMigrate() throws {
        try store.register("Holder", "1", #"{"fields":{"label":"string","bar":{"ref":"Bar"}}}"#)
        try cache.putObject("h", "Holder", #"{"label":"L","bar":{"s":"hi","date":"2016-05-04T03:02:01Z"}}"#)
        try store.register("Bar", "2", #"{"fields":{"s":"string","date":"date","label":"string?"}}"#)
        // The holder moves its own field into the nested object; Bar 1 → 2 adds only an optional field.
        try store.register("Holder", "2", #"{"fields":{"bar":{"ref":"Bar"}},"migrations":[{"from":"1","steps":[{"op":"move","from":"label","to":"bar.label"}]}]}"#)
        let migrated = try XCTUnwrap(cache.readObject("h").migratedObject)
        XCTAssertEqual(migrated.version.text, "2")
        XCTAssertEqual(migrated.plainValue, json(#"{"bar":{"s":"hi","date":"2016-05-04T03:02:01Z","label":"L"}}"#))
        XCTAssertEqual(StoredObject(migrated.value["bar"]!)?.version.text, "2")
    }

    func testAFailingNestedMigrationFailsTheRead() throws {
        try store.register("Holder", "1", #"{"fields":{"bar":{"ref":"Bar"}}}"#)
        let original = try cache.putObject("h", "Holder", #"{"bar":{"s":"hi","date":"2016-05-04T03:02:01Z"}}"#).json.encoded
        try store.register("Bar", "2", #"{"fields":{"s":"integer","date":"date"},"migrations":[{"from":"1","steps":[{"op":"convert","field":"s","to":"integer"}]}]}"#)
        let failed = assertMigrationFailed { _ = try self.cache.readObject("h") }
        XCTAssertEqual(failed?.type, "Bar")
        XCTAssertEqual(failed?.from, "1")
        XCTAssertEqual(failed?.to, "2")
        XCTAssertEqual(try cache.rawBytes("h"), original)
    }

    func testANestedCallbackIsAskedWithItsPath() throws {
        try store.register("Holder", "1", #"{"fields":{"bars":{"array":{"ref":"Bar"}}}}"#)
        try cache.putObject("h", "Holder", #"{"bars":[{"s":"a","date":"2020-01-01T00:00:00Z"}]}"#)
        try store.register("Bar", "2", #"{"fields":{"s":"string","date":"date"},"migrations":[{"from":"1","steps":[{"op":"callback"}]}]}"#)
        let question = try XCTUnwrap(cache.readObject("h").callbackRequest)
        XCTAssertEqual(question.id, "bars.0|Bar|1|2")
        XCTAssertEqual(question.type, "Bar")
        XCTAssertEqual(question.value, json(#"{"s":"a","date":"2020-01-01T00:00:00Z"}"#))
        let done = try XCTUnwrap(cache.readObject("h", answers: [question.id: .value(json(#"{"s":"A","date":"2020-01-01T00:00:00Z"}"#))]).migratedObject)
        XCTAssertEqual(done.plainValue, json(#"{"bars":[{"s":"A","date":"2020-01-01T00:00:00Z"}]}"#))
    }

    func testADeletedNestedTypeIsReadAsAPlainMapAndMovable() throws {
        try store.register("Holder", "1.0", #"{"fields":{"name":"string","barObject":{"ref":"Bar"}}}"#)
        try cache.putObject("holder", "Holder", #"{"name":"h","barObject":{"s":"gone soon","date":"2016-05-04T03:02:01Z"}}"#)
        XCTAssertEqual(try store.removeSchema("Bar"), 1)

        // While the holder's type is unchanged, the nested object reads as a plain map.
        let current = try XCTUnwrap(cache.readObject("holder").currentObject)
        XCTAssertEqual(current.plainValue, json(#"{"name":"h","barObject":{"s":"gone soon","date":"2016-05-04T03:02:01Z"}}"#))

        try store.register("Holder", "1.1", #"""
            {"fields":{"name":"string","barObjectDate":"date"},"migrations":[{"from":"1.0","steps":[
              {"op":"move","from":"barObject.date","to":"barObjectDate"},{"op":"remove","field":"barObject"}]}]}
            """#)
        let read = try cache.readObject("holder")
        XCTAssertEqual(read.migratedFrom?.text, "1.0")
        let migrated = try XCTUnwrap(read.migratedObject)
        XCTAssertEqual(migrated.version.text, "1.1")
        XCTAssertEqual(migrated.plainValue, json(#"{"name":"h","barObjectDate":"2016-05-04T03:02:01Z"}"#))
    }

    func testHMCacheReadmeScenario() throws {
        try store.register("FooObject", "1.0.0", #"{"fields":{"string":"string","date":"date","integer":"integer","array":{"array":"string"},"barObject":{"ref":"Bar"}}}"#)
        try cache.putObject("written at 1.0.0", "FooObject", #"{"string":"I am a foo!","date":"2017-02-06T16:03:40Z","integer":1,"array":["a","b"],"barObject":{"s":"I am a bar!","date":"2017-01-01T00:00:00Z"}}"#)
        try store.register("FooObject", "1.0.1", #"""
            {"fields":{"changeNameString":"string","date":"number","array":{"array":"string"},"addString":"string"},
             "migrations":[{"from":"1.0.0","steps":[{"op":"rename","from":"string","to":"changeNameString"},
               {"op":"convert","field":"date","to":"epochSeconds"},{"op":"remove","field":"integer"},
               {"op":"move","from":"barObject.s","to":"addString"},{"op":"remove","field":"barObject"}]}]}
            """#)
        try cache.putObject("written at 1.0.1", "FooObject", #"{"changeNameString":"newer foo","date":1700000000,"array":["c"],"addString":"added"}"#)
        try store.register("FooObject", "1.0.2", #"{"fields":{"changeNameString":"string","date":"number","addString":"string"},"migrations":[{"from":["1.0.1"],"steps":[{"op":"remove","field":"array"}]}]}"#)
        try cache.putObject("written at 1.0.2", "FooObject", #"{"changeNameString":"newest foo","date":1800000000,"addString":"plain"}"#)

        let a = try cache.readObject("written at 1.0.0")
        XCTAssertEqual(a.migratedFrom?.text, "1.0.0")
        XCTAssertEqual(a.migratedObject?.plainValue, json(#"{"changeNameString":"I am a foo!","date":1486397020,"addString":"I am a bar!"}"#))
        let b = try cache.readObject("written at 1.0.1")
        XCTAssertEqual(b.migratedFrom?.text, "1.0.1")
        XCTAssertEqual(b.migratedObject?.plainValue, json(#"{"changeNameString":"newer foo","date":1700000000,"addString":"added"}"#))
        XCTAssertEqual(try cache.readObject("written at 1.0.2").currentObject?.plainValue,
                       json(#"{"changeNameString":"newest foo","date":1800000000,"addString":"plain"}"#))
        XCTAssertEqual(try cache.readObject("written at 1.0.0").currentObject?.version.text, "1.0.2")
    }
}
