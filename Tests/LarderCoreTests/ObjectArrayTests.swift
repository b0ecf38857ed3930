import XCTest
import LarderJSON
@testable import LarderCore
import LarderStorage

/// Arrays of objects under one key (HMCache's `+cacheArray:forKey:`): validated,
/// migrated and written back element by element, all or nothing.
final class ObjectArrayTests: ObjectStoreTestCase {
    override func prepare() throws {
        try store.register("Tag", "1", #"{"fields":{"label":"string"}}"#)
        try store.register("Note", "1", #"{"fields":{"text":"string","count":"json","tag":{"optional":{"ref":"Tag"}}}}"#)
    }

    @discardableResult
    private func putArray(_ key: String, _ type: String, _ values: String) throws -> StoredObjectArray {
        guard case .array(let elements) = json(values) else { throw StoreError.invalidArgument(field: "values", reason: "not an array") }
        let array = try ObjectValidator.taggedArray(elements, as: type, store: store)
        try cache.put(.array(array), at: EntryKey(group: "g", key: key), ttl: nil)
        return array
    }

    private func readArray(_ key: String, answers: [String: CallbackAnswer] = [:]) throws -> ObjectArrayRead? {
        guard case .array(let read) = try cache.readObject(key, answers: answers) else { return nil }
        return read
    }

    private func stored(_ key: String) throws -> String? {
        try cache.rawBytes(key).map { String(decoding: $0, as: UTF8.self) }
    }

    func testAnArrayIsTaggedOnceAndReadBackAsItsElements() throws {
        try putArray("notes", "Note", #"[{"text":"a","count":1},{"text":"b","count":2,"tag":{"label":"x"}}]"#)
        XCTAssertEqual(try stored("notes"),
                       #"{"$type":"Note","$version":"1","$values":[{"text":"a","count":1},{"text":"b","count":2,"tag":{"$type":"Tag","$version":"1","$value":{"label":"x"}}}]}"#)
        let read = try XCTUnwrap(readArray("notes"))
        XCTAssertNil(read.migratedFrom)
        XCTAssertEqual(read.migrated, 0)
        XCTAssertEqual(read.array.plainValues, [json(#"{"text":"a","count":1}"#), json(#"{"text":"b","count":2,"tag":{"label":"x"}}"#)])
        XCTAssertEqual(try cache.objectCount(), 1, "one entry, however many elements")
        XCTAssertNil(try cache.rawObject("notes"), "not a single object")
    }

    func testAnEmptyArrayKeepsItsType() throws {
        try putArray("none", "Note", "[]")
        let read = try XCTUnwrap(readArray("none"))
        XCTAssertEqual(read.array.type, "Note")
        XCTAssertEqual(read.array.values.count, 0)
        assertStoreError(.schemaNotFound("Nope")) { try self.putArray("x", "Nope", "[]") }
        XCTAssertNil(try cache.lookup("x"))
    }

    func testValidationNamesTheElementAndStoresNothing() throws {
        assertInvalidObject(path: "values[1].text", reason: "expected string, got integer") {
            try self.putArray("notes", "Note", #"[{"text":"a","count":1},{"text":5,"count":2}]"#)
        }
        assertInvalidObject(path: "values[0]", reason: "expected an object of type Note, got array") {
            try self.putArray("notes", "Note", #"[[]]"#)
        }
        XCTAssertNil(try cache.lookup("notes"))
    }

    func testElementsAreMigratedAndWrittenBackTogether() throws {
        try putArray("notes", "Note", #"[{"text":"a","count":1},{"text":"b","count":2}]"#)
        try store.register("Note", "2", #"""
            {"fields":{"body":"string","count":"integer","tag":{"optional":{"ref":"Tag"}}},
             "migrations":[{"from":"1","steps":[{"op":"rename","from":"text","to":"body"}]}]}
            """#)
        let read = try XCTUnwrap(readArray("notes"))
        XCTAssertEqual(read.migratedFrom?.text, "1")
        XCTAssertEqual(read.migrated, 2)
        XCTAssertEqual(read.array.version.text, "2")
        XCTAssertEqual(read.array.plainValues, [json(#"{"body":"a","count":1}"#), json(#"{"body":"b","count":2}"#)])
        XCTAssertEqual(try stored("notes"), #"{"$type":"Note","$version":"2","$values":[{"body":"a","count":1},{"body":"b","count":2}]}"#)
        let again = try XCTUnwrap(readArray("notes"))
        XCTAssertNil(again.migratedFrom, "written back: current now")
    }

    func testAFailingElementFailsTheReadNamesItsIndexAndWritesNothing() throws {
        try putArray("notes", "Note", #"[{"text":"a","count":1},{"text":"b","count":"two"}]"#)
        let before = try stored("notes")
        try store.register("Note", "2", #"""
            {"fields":{"text":"string","count":"integer","tag":{"optional":{"ref":"Tag"}}},
             "migrations":[{"from":"1","steps":[{"op":"convert","field":"count","to":"integer"}]}]}
            """#)
        do {
            _ = try cache.readObject("notes")
            XCTFail("expected the read to fail")
        } catch let StoreError.element(index, error) {
            XCTAssertEqual(index, 1)
            guard case .migrationFailed(let key, let type, let from, let to, let reason) = error else {
                return XCTFail("expected migrationFailed, got \(error)")
            }
            XCTAssertEqual([key, type, from, to], ["notes", "Note", "1", "2"])
            XCTAssertTrue(reason.contains(#"cannot convert "two" to integer"#), reason)
        }
        XCTAssertEqual(try stored("notes"), before, "element 0 migrated, yet nothing was written")
    }

    func testCallbacksAreAskedPerElementAndADropRemovesOnlyThatElement() throws {
        try putArray("notes", "Note", #"[{"text":"a","count":1},{"text":"b","count":2},{"text":"c","count":3}]"#)
        try store.register("Note", "2", #"""
            {"fields":{"text":"string","count":"json","tag":{"optional":{"ref":"Tag"}}},
             "migrations":[{"from":"1","steps":[{"op":"callback"}]}]}
            """#)
        var answers: [String: CallbackAnswer] = [:]
        var asked: [(String, Int?)] = []
        while case .needsCallback(let question) = try cache.readObject("notes", answers: answers, writeBack: false) {
            asked.append((question.id, question.index))
            answers[question.id] = question.index == 1 ? .drop : .value(json(#"{"text":"answered","count":0}"#))
        }
        XCTAssertEqual(asked.map(\.0), ["[0]|Note|1|2", "[1]|Note|1|2", "[2]|Note|1|2"])
        XCTAssertEqual(asked.map(\.1), [0, 1, 2])
        let read = try XCTUnwrap(readArray("notes", answers: answers))
        XCTAssertEqual(read.dropped, [1])
        XCTAssertEqual(read.migrated, 2)
        XCTAssertEqual(read.array.plainValues.count, 2)
        XCTAssertEqual(try XCTUnwrap(readArray("notes")).array.values.count, 2, "written back without the dropped element")
    }

    func testOnlyTheElementsBehindAreMigrated() throws {
        try putArray("notes", "Note", #"[{"text":"a","count":1,"tag":{"label":"x"}},{"text":"b","count":2}]"#)
        // Tag 2 only adds an optional field: an automatic step, for the nested tag of element 0 alone.
        try store.register("Tag", "2", #"{"fields":{"label":"string","colour":"string?"}}"#)
        let read = try XCTUnwrap(readArray("notes"))
        XCTAssertEqual(read.migrated, 1)
        XCTAssertEqual(read.migratedFrom?.text, "1", "the array's own version did not change")
        XCTAssertTrue(try XCTUnwrap(stored("notes")).contains(#"{"$type":"Tag","$version":"2","$value":{"label":"x"}}"#))
    }

    func testAnArrayWhoseTypeIsGoneIsReadAsStored() throws {
        try putArray("notes", "Note", #"[{"text":"a","count":1}]"#)
        _ = try store.removeSchema("Note")
        let read = try XCTUnwrap(readArray("notes"))
        XCTAssertNil(read.migratedFrom)
        XCTAssertEqual(read.array.type, "Note")
        XCTAssertEqual(read.array.plainValues, [json(#"{"text":"a","count":1}"#)])
    }

    func testDescriptionsAndHashes() throws {
        let array = try putArray("notes", "Note", #"[{"text":"a","count":1},{"text":"b","count":[2],"tag":{"label":"x"}}]"#)
        XCTAssertEqual(try ObjectDescription(store: store).describe(ObjectContent.array(array)).description,
                       #"[{"*Note":{"text":"a","count":1,"tag":null}},{"*Note":{"text":"b","count":[2],"tag":{"*Tag":{"label":"x"}}}}]"#)
        let one = try ObjectValidator.tagged(json(#"{"text":"a","count":1}"#), as: "Note", store: store)
        let alone = try ObjectValidator.taggedArray([json(#"{"text":"a","count":1}"#)], as: "Note", store: store)
        XCTAssertNotEqual(CanonicalJSON.hash(of: .single(one)), CanonicalJSON.hash(of: .array(alone)),
                          "an array of one object does not hash as the object")
        XCTAssertEqual(CanonicalJSON.hash(of: .array(alone)), CanonicalJSON.hash(type: "Note", values: [json(#"{"count":1.0,"text":"a"}"#)]))
    }
}
