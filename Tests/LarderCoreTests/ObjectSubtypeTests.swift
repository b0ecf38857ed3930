import XCTest
import LarderJSON
@testable import LarderCore

/// A field declared as a reference to a type holds an object of any type that
/// inherits from it, named by `$type` (HMCache's dictionary of a FooObject and
/// a SubFooObject): validated, tagged, migrated and described as that type.
final class ObjectSubtypeTests: ObjectStoreTestCase {
    override func prepare() throws {
        try store.register("FooObject", "1.0.0", #"{"fields":{"string":"string","integer":"integer","barObjectDate":"date?"}}"#)
        try store.register("SubFooObject", "1", #"{"parent":"FooObject","fields":{"number":"integer"}}"#)
        try store.register("Shelf", "1", #"{"fields":{"first":{"ref":"FooObject"},"byKey":{"map":{"ref":"FooObject"}},"list":{"array":{"ref":"FooObject"}}}}"#)
    }

    private let foo = #"{"string":"I am a foo!","integer":1}"#
    private let subFoo = #"{"$type":"SubFooObject","number":123,"string":"I am a foo!","integer":1}"#

    func testASubtypeIsStoredWhereItsParentIsDeclared() throws {
        let stored = try cache.putObject("s", "Shelf", #"{"first":\#(subFoo),"byKey":{"1":\#(foo),"2":\#(subFoo)},"list":[\#(foo),\#(subFoo)]}"#)
        let nested = try XCTUnwrap(StoredObject(stored.value["first"]!))
        XCTAssertEqual(nested.type, "SubFooObject")
        XCTAssertEqual(nested.declared, "FooObject")
        XCTAssertEqual(nested.parents.map(\.type), ["FooObject"])
        XCTAssertEqual(nested.json.description,
                       #"{"$type":"SubFooObject","$version":"1","$value":{"string":"I am a foo!","integer":1,"number":123},"$parents":{"FooObject":"1.0.0"},"$declared":"FooObject"}"#)
        // An object of the declared type itself is tagged as before.
        XCTAssertNil(StoredObject(stored.value["byKey"]!["1"]!)?.declared)
        XCTAssertEqual(stored.plainValue.description,
                       #"{"first":{"$type":"SubFooObject","string":"I am a foo!","integer":1,"number":123},"byKey":{"1":{"string":"I am a foo!","integer":1},"2":{"$type":"SubFooObject","string":"I am a foo!","integer":1,"number":123}},"list":[{"string":"I am a foo!","integer":1},{"$type":"SubFooObject","string":"I am a foo!","integer":1,"number":123}]}"#)
        // The plain value, sent again, stores the same object; naming the declared type is naming nothing.
        let again = try cache.putObject("t", "Shelf", stored.plainValue.description)
        XCTAssertEqual(again.json, stored.json)
        let named = try cache.putObject("u", "Shelf", #"{"first":{"$type":"FooObject","string":"s","integer":2},"byKey":{},"list":[]}"#)
        XCTAssertEqual(named.plainValue.description, #"{"first":{"string":"s","integer":2},"byKey":{},"list":[]}"#)
        XCTAssertEqual(try cache.readObject("s").currentObject?.json, stored.json)
    }

    /// HMCache's own example: a dictionary holding a FooObject and a SubFooObject.
    func testTheSubtypeIsDescribedAsHMCacheDescribesIt() throws {
        let stored = try cache.putObject("s", "Shelf", #"{"first":\#(foo),"byKey":{"1":\#(foo),"2":\#(subFoo)},"list":[]}"#)
        XCTAssertEqual(try ObjectDescription(store: store).describe(stored).description,
                       #"{"*Shelf":{"first":{"*FooObject":{"string":"I am a foo!","integer":1,"barObjectDate":null}},"byKey":{"1":{"*FooObject":{"string":"I am a foo!","integer":1,"barObjectDate":null}},"2":{"*SubFooObject":{"number":123,"**FooObject":{"string":"I am a foo!","integer":1,"barObjectDate":null}}}},"list":[]}}"#)
    }

    func testASubtypeIsValidatedAsItsOwnType() throws {
        assertInvalidObject(path: "value.byKey.2.number", reason: "missing required field of type integer") {
            try cache.putObject("s", "Shelf", #"{"first":\#(foo),"byKey":{"2":{"$type":"SubFooObject","string":"s","integer":1}},"list":[]}"#)
        }
        assertInvalidObject(path: "value.first.number", reason: "FooObject 1.0.0 has no field \"number\"") {
            try cache.putObject("s", "Shelf", #"{"first":{"string":"s","integer":1,"number":2},"byKey":{},"list":[]}"#)
        }
    }

    func testATypeNameThatIsNotASubtypeIsRefusedSayingWhy() throws {
        assertInvalidObject(path: "value.list[0].$type", reason: "Shelf does not inherit from FooObject") {
            try cache.putObject("s", "Shelf", #"{"first":\#(foo),"byKey":{},"list":[{"$type":"Shelf","string":"s","integer":1}]}"#)
        }
        assertInvalidObject(path: "value.first.$type", reason: "no type \"SubFooObjcet\" is registered (did you mean SubFooObject?)") {
            try cache.putObject("s", "Shelf", #"{"first":{"$type":"SubFooObjcet","string":"s","integer":1},"byKey":{},"list":[]}"#)
        }
        assertInvalidObject(path: "value.first.$type", reason: "expected the name of FooObject or of a type inheriting from it, got integer") {
            try cache.putObject("s", "Shelf", #"{"first":{"$type":1,"string":"s","integer":1},"byKey":{},"list":[]}"#)
        }
        // At the top, the type is the request's: `$type` is no field of it.
        assertInvalidObject(path: "value.$type", reason: "FooObject 1.0.0 has no field \"$type\"") {
            try cache.putObject("f", "FooObject", #"{"$type":"SubFooObject","string":"s","integer":1}"#)
        }
        XCTAssertThrowsError(try store.register("Odd", "1", #"{"fields":{"$type":"string"}}"#))
    }

    /// Nested objects written before subtypes were allowed carry no `$declared`:
    /// they read as the declared type, unchanged.
    func testANestedObjectStoredWithoutADeclaredTypeReadsAsBefore() throws {
        let old = #"{"$type":"Shelf","$version":"1","$value":{"first":{"$type":"FooObject","$version":"1.0.0","$value":{"string":"s","integer":1}},"byKey":{},"list":[]}}"#
        try cache.put(XCTUnwrap(ObjectContent(json(old))), at: EntryKey(group: "g", key: "old"), ttl: nil)
        let read = try XCTUnwrap(cache.readObject("old").currentObject)
        XCTAssertEqual(read.json.description, old)
        XCTAssertEqual(read.plainValue.description, #"{"first":{"string":"s","integer":1},"byKey":{},"list":[]}"#)
    }

    /// The subtype migrates by its own chain and its parent's, however the
    /// holder's own migration moves it, and keeps its type.
    func testASubtypeMigratesByItsOwnAndItsParentsMigrations() throws {
        try cache.putObject("s", "Shelf", #"{"first":\#(subFoo),"byKey":{"2":\#(subFoo)},"list":[\#(subFoo),\#(foo)]}"#)
        try store.register("FooObject", "1.0.1", #"{"fields":{"text":"string","integer":"integer","barObjectDate":"date?"},"migrations":[{"from":"1.0.0","steps":[{"op":"rename","from":"string","to":"text"}]}]}"#)
        try store.register("SubFooObject", "2", #"{"parent":"FooObject","fields":{"count":"integer"},"migrations":[{"from":"1","steps":[{"op":"rename","from":"number","to":"count"}]}]}"#)
        try store.register("Shelf", "2", #"{"fields":{"main":{"ref":"FooObject"},"byKey":{"map":{"ref":"FooObject"}},"list":{"array":{"ref":"FooObject"}}},"migrations":[{"from":"1","steps":[{"op":"rename","from":"first","to":"main"}]}]}"#)

        let read = try cache.readObject("s")
        let migrated = try XCTUnwrap(read.migratedObject, "\(read)")
        let sub = #"{"$type":"SubFooObject","text":"I am a foo!","integer":1,"count":123}"#
        XCTAssertEqual(migrated.plainValue.description,
                       #"{"main":\#(sub),"byKey":{"2":\#(sub)},"list":[\#(sub),{"text":"I am a foo!","integer":1}]}"#)
        let main = try XCTUnwrap(StoredObject(migrated.value["main"]!))
        XCTAssertEqual(main.version.text, "2")
        XCTAssertEqual(main.parents.map(\.version.text), ["1.0.1"])
        XCTAssertEqual(main.declared, "FooObject")
        XCTAssertEqual(try cache.readObject("s").currentObject?.json, migrated.json, "written back")
    }

    /// Only the parent of the nested subtype changing is enough to migrate it.
    func testANestedObjectsParentChangingAloneMigratesIt() throws {
        try cache.putObject("s", "Shelf", #"{"first":\#(subFoo),"byKey":{},"list":[]}"#)
        try store.register("FooObject", "1.0.1", #"{"fields":{"text":"string","integer":"integer","barObjectDate":"date?"},"migrations":[{"from":"1.0.0","steps":[{"op":"rename","from":"string","to":"text"}]}]}"#)
        let migrated = try XCTUnwrap(cache.readObject("s").migratedObject)
        XCTAssertEqual(migrated.plainValue.description,
                       #"{"first":{"$type":"SubFooObject","text":"I am a foo!","integer":1,"number":123},"byKey":{},"list":[]}"#)
    }

    func testASubtypeHashesApartFromItsParent() throws {
        try store.register("Tag", "1", #"{"fields":{"label":"string"}}"#)
        try store.register("SpecialTag", "1", #"{"parent":"Tag","fields":{}}"#)
        try store.register("Box", "1", #"{"fields":{"tag":{"ref":"Tag"}}}"#)
        let plain = try cache.putObject("a", "Box", #"{"tag":{"label":"x"}}"#)
        let special = try cache.putObject("b", "Box", #"{"tag":{"$type":"SpecialTag","label":"x"}}"#)
        XCTAssertNotEqual(CanonicalJSON.hash(of: .single(plain)), CanonicalJSON.hash(of: .single(special)))
    }
}
