import XCTest
import LarderJSON
@testable import LarderCore

/// Each migration step op, run by reading an object stored at version 1 after version 2 is registered.
final class MigrationStepTests: StoreTestCase {
    /// Stores `value` as T 1 (`old` fields), registers T 2 (`new` fields, `steps` from 1), reads it back.
    private func migrate(old: String, value: String, new: String, steps: String,
                         file: StaticString = #filePath, line: UInt = #line) throws -> JSON {
        let store = try makeStore(inMemory: true)
        let cache = try openCache(store)
        try store.register("T", "1", #"{"fields":\#(old)}"#)
        try cache.putObject("k", "T", value)
        try store.register("T", "2", #"{"fields":\#(new),"migrations":[{"from":"1","steps":\#(steps)}]}"#)
        let read = try cache.readObject("k")
        let migrated = try XCTUnwrap(read.migratedObject, "expected a migration, got \(read)", file: file, line: line)
        XCTAssertEqual(migrated.version.text, "2", file: file, line: line)
        XCTAssertEqual(read.migratedFrom?.text, "1", file: file, line: line)
        return migrated.plainValue
    }

    /// Like `migrate`, but the migration must fail; returns the reason.
    private func failure(old: String, value: String, new: String, steps: String,
                         file: StaticString = #filePath, line: UInt = #line) throws -> String? {
        let store = try makeStore(inMemory: true)
        let cache = try openCache(store)
        try store.register("T", "1", #"{"fields":\#(old)}"#)
        try cache.putObject("k", "T", value)
        let before = try cache.rawBytes("k")
        try store.register("T", "2", #"{"fields":\#(new),"migrations":[{"from":"1","steps":\#(steps)}]}"#)
        let failed = assertMigrationFailed(file: file, line: line) { _ = try cache.readObject("k") }
        XCTAssertEqual(failed?.key, "k", file: file, line: line)
        XCTAssertEqual(failed?.type, "T", file: file, line: line)
        XCTAssertEqual(failed?.from, "1", file: file, line: line)
        XCTAssertEqual(failed?.to, "2", file: file, line: line)
        XCTAssertEqual(try cache.rawBytes("k"), before, "a failed migration leaves the data alone", file: file, line: line)
        return failed?.reason
    }

    func testRename() throws {
        XCTAssertEqual(try migrate(old: #"{"a":"string","keep":"integer"}"#, value: #"{"a":"x","keep":1}"#,
                                   new: #"{"b":"string","keep":"integer"}"#,
                                   steps: #"[{"op":"rename","from":"a","to":"b"}]"#),
                       json(#"{"b":"x","keep":1}"#))
    }

    func testRenameOfAnAbsentFieldDoesNothing() throws {
        XCTAssertEqual(try migrate(old: #"{"a":"string?"}"#, value: "{}", new: #"{"b":"string?"}"#,
                                   steps: #"[{"op":"rename","from":"a","to":"b"}]"#),
                       json("{}"))
    }

    func testRemove() throws {
        XCTAssertEqual(try migrate(old: #"{"a":"string","b":"integer"}"#, value: #"{"a":"x","b":1}"#,
                                   new: #"{"a":"string"}"#,
                                   steps: #"[{"op":"remove","field":"b"},{"op":"remove","field":"never"}]"#),
                       json(#"{"a":"x"}"#))
    }

    func testSetOverwritesWhateverWasThere() throws {
        XCTAssertEqual(try migrate(old: #"{"a":"string","b":"string?"}"#, value: #"{"a":"old","b":null}"#,
                                   new: #"{"a":"string","b":"string","c":{"array":"integer"}}"#,
                                   steps: #"[{"op":"set","field":"a","value":"new"},{"op":"set","field":"b","value":"filled"},{"op":"set","field":"c","value":[1,2]}]"#),
                       json(#"{"a":"new","b":"filled","c":[1,2]}"#))
    }

    func testDefaultOnlyFillsAbsentOrNullFields() throws {
        XCTAssertEqual(try migrate(old: #"{"a":"string","b":"string?","c":"string?"}"#, value: #"{"a":"kept","b":null}"#,
                                   new: #"{"a":"string","b":"string","c":"string"}"#,
                                   steps: #"[{"op":"default","field":"a","value":"no"},{"op":"default","field":"b","value":"was null"},{"op":"default","field":"c","value":"was absent"}]"#),
                       json(#"{"a":"kept","b":"was null","c":"was absent"}"#))
    }

    func testDefaultAndSetDifferOnAPresentValue() throws {
        let steps = #"[{"op":"%@","field":"n","value":0}]"#
        let old = #"{"n":"integer"}"#, new = #"{"n":"integer","m":"string?"}"#
        XCTAssertEqual(try migrate(old: old, value: #"{"n":5}"#, new: new, steps: steps.replacingOccurrences(of: "%@", with: "default")),
                       json(#"{"n":5}"#))
        XCTAssertEqual(try migrate(old: old, value: #"{"n":5}"#, new: new, steps: steps.replacingOccurrences(of: "%@", with: "set")),
                       json(#"{"n":0}"#))
    }

    func testConvert() throws {
        XCTAssertEqual(try migrate(old: #"{"stars":"integer","date":"date","flag":"string","absent":"integer?"}"#,
                                   value: #"{"stars":3,"date":"2017-02-06T16:03:40Z","flag":"true"}"#,
                                   new: #"{"stars":"string","date":"number","flag":"bool","absent":"string?"}"#,
                                   steps: #"[{"op":"convert","field":"stars","to":"string"},{"op":"convert","field":"date","to":"epochSeconds"},{"op":"convert","field":"flag","to":"bool"},{"op":"convert","field":"absent","to":"string"}]"#),
                       json(#"{"stars":"3","date":1486397020,"flag":true}"#))
    }

    func testConvertEpochMillisToDate() throws {
        XCTAssertEqual(try migrate(old: #"{"t":"integer"}"#, value: #"{"t":1486397020123}"#, new: #"{"t":"date"}"#,
                                   steps: #"[{"op":"convert","field":"t","to":"date","from":"epochMillis"}]"#),
                       json(#"{"t":"2017-02-06T16:03:40.123Z"}"#))
        XCTAssertEqual(try migrate(old: #"{"t":"integer"}"#, value: #"{"t":1486397020}"#, new: #"{"t":"date"}"#,
                                   steps: #"[{"op":"convert","field":"t","to":"date"}]"#),
                       json(#"{"t":"2017-02-06T16:03:40.000Z"}"#))
    }

    func testAFailedConversionFailsTheMigration() throws {
        let reason = try failure(old: #"{"n":"number"}"#, value: #"{"n":1.5}"#, new: #"{"n":"integer"}"#,
                                 steps: #"[{"op":"convert","field":"n","to":"integer"}]"#)
        XCTAssertEqual(reason, #"{"op":"convert","field":"n","to":"integer"} (1 → 2): cannot convert 1.5 to integer"#)
    }

    func testMoveOutOfANestedObject() throws {
        XCTAssertEqual(try migrate(old: #"{"meta":"json"}"#, value: #"{"meta":{"x":1,"inner":{"y":2,"z":3}}}"#,
                                   new: #"{"meta":"json","y":"integer"}"#,
                                   steps: #"[{"op":"move","from":"meta.inner.y","to":"y"}]"#),
                       json(#"{"meta":{"x":1,"inner":{"z":3}},"y":2}"#))
    }

    func testMoveIntoANestedObjectCreatesTheWayThere() throws {
        XCTAssertEqual(try migrate(old: #"{"name":"string","meta":"json"}"#, value: #"{"name":"n","meta":{"x":1}}"#,
                                   new: #"{"meta":"json","box":{"map":{"map":"string"}}}"#,
                                   steps: #"[{"op":"move","from":"name","to":"meta.info.name"},{"op":"set","field":"box.a.b","value":"deep"}]"#),
                       json(#"{"meta":{"x":1,"info":{"name":"n"}},"box":{"a":{"b":"deep"}}}"#))
    }

    func testMoveBetweenNestedObjects() throws {
        XCTAssertEqual(try migrate(old: #"{"a":"json","b":"json"}"#, value: #"{"a":{"v":[1,{"w":2}]},"b":{}}"#,
                                   new: #"{"a":"json","b":"json"}"#,
                                   steps: #"[{"op":"rename","from":"a.v","to":"b.c.v"}]"#),
                       json(#"{"a":{},"b":{"c":{"v":[1,{"w":2}]}}}"#))
    }

    func testMovingAnAbsentPathDoesNothing() throws {
        XCTAssertEqual(try migrate(old: #"{"a":"json"}"#, value: #"{"a":{"x":1}}"#, new: #"{"a":"json"}"#,
                                   steps: #"[{"op":"move","from":"a.nope.deeper","to":"b"},{"op":"move","from":"a.x.y","to":"c"}]"#),
                       json(#"{"a":{"x":1}}"#))
    }

    func testAPathThroughANonObjectFails() throws {
        let reason = try failure(old: #"{"a":"string"}"#, value: #"{"a":"text"}"#, new: #"{"a":"json"}"#,
                                 steps: #"[{"op":"set","field":"a.b","value":1}]"#)
        XCTAssertEqual(reason, #"{"op":"set","field":"a.b","value":1} (1 → 2): a.b runs through something that is not an object"#)
    }

    func testStepsRunInOrder() throws {
        XCTAssertEqual(try migrate(old: #"{"a":"integer"}"#, value: #"{"a":7}"#, new: #"{"c":"string"}"#,
                                   steps: #"[{"op":"rename","from":"a","to":"b"},{"op":"convert","field":"b","to":"string"},{"op":"rename","from":"b","to":"c"}]"#),
                       json(#"{"c":"7"}"#))
    }

    func testTheTargetVersionsDefaultsFillAbsentFields() throws {
        // Defaults of the version a hop arrives at are filled in before the next hop runs.
        let store = try makeStore(inMemory: true)
        let cache = try openCache(store)
        try store.register("T", "1", #"{"fields":{"a":"string"}}"#)
        try cache.putObject("k", "T", #"{"a":"x"}"#)
        try store.register("T", "2", #"{"fields":{"a":"string","n":{"type":"integer","default":5}},"migrations":[{"from":"1","steps":[]}]}"#)
        try store.register("T", "3", #"{"fields":{"a":"string","n":"string"},"migrations":[{"from":"2","steps":[{"op":"convert","field":"n","to":"string"}]}]}"#)
        XCTAssertEqual(try cache.readObject("k").migratedObject?.plainValue, json(#"{"a":"x","n":"5"}"#))
    }

    func testAResultThatDoesNotValidateFails() throws {
        let reason = try failure(old: #"{"line":"string","level":"integer"}"#, value: #"{"line":"boot","level":2}"#,
                                 new: #"{"line":"string","level":"string"}"#, steps: #"[{"op":"remove","field":"level"}]"#)
        XCTAssertEqual(reason, "the migrated value does not validate: value.level: missing required field of type string")
        let extra = try failure(old: #"{"a":"string"}"#, value: #"{"a":"x"}"#, new: #"{"a":"string"}"#,
                                steps: #"[{"op":"set","field":"stray","value":1}]"#)
        XCTAssertEqual(extra, #"the migrated value does not validate: value.stray: T 2 has no field "stray""#)
    }
}
