import LarderJSON
import XCTest
@testable import LarderCore

/// Mistakes in definitions are refused when registered, not discovered on every later read.
final class SchemaRegressionTests: StoreTestCase {
    func testExtendRefusesTheSameNewFieldTwice() throws {
        let store = try makeStore()
        try store.register("T", "1", #"{"fields":{"a":"string"}}"#)
        XCTAssertThrowsError(try store.extend(type: "T", category: "C",
                                              fields: FieldDefinition.list(from: json(#"{"x":"string","x":"integer"}"#), at: "fields")))
        XCTAssertEqual(try store.versionTexts(of: "T"), ["1"], "the type stays usable")
    }

    func testTheSameDefinitionUnderAnEquallyNumberedVersionIsAccepted() throws {
        let store = try makeStore()
        XCTAssertTrue(try store.register("P", "1", #"{"fields":{"name":"string"}}"#))
        XCTAssertFalse(try store.register("P", "1.0", #"{"fields":{"name":"string"}}"#))
    }

    func testAChildMayNotRedeclareAnInheritedField() throws {
        let store = try makeStore()
        try store.register("Base", "1", #"{"fields":{"name":"string"}}"#)
        XCTAssertThrowsError(try store.register("Kid", "1", #"{"parent":"Base","fields":{"name":"integer"}}"#))
    }

    func testADefaultMustMatchItsType() throws {
        let store = try makeStore()
        XCTAssertThrowsError(try store.register("F", "1", #"{"fields":{"flag":{"type":"bool","default":"yes"}}}"#))
        XCTAssertTrue(try store.register("F", "1", #"{"fields":{"flag":{"type":"bool","default":true}}}"#))
    }
}

final class MigrationRegressionTests: StoreTestCase {
    func testARenamedNestedObjectStillMigratesItself() throws {
        let store = try makeStore()
        let cache = try XCTUnwrap(store.cache(named: "c", create: true))
        try store.register("Bar", "1", #"{"fields":{"s":"string"}}"#)
        try store.register("Holder", "1", #"{"fields":{"bar":{"ref":"Bar"}}}"#)
        try cache.putObject("h", "Holder", #"{"bar":{"s":"x"}}"#)
        try store.register("Bar", "2", #"{"fields":{"t":"string"},"migrations":[{"from":"1","steps":[{"op":"rename","from":"s","to":"t"}]}]}"#)
        try store.register("Holder", "2", #"{"fields":{"b":{"ref":"Bar"}},"migrations":[{"from":"1","steps":[{"op":"rename","from":"bar","to":"b"}]}]}"#)
        guard case .migrated(let upgraded, _) = try cache.readObject("h") else { return XCTFail("not migrated") }
        XCTAssertEqual(upgraded.plainValue, json(#"{"b":{"t":"x"}}"#))
    }

    func testConvertChangesTheUnitOfANumberWhenToldItsUnit() throws {
        XCTAssertEqual(try Conversion.convert(1_486_397_020, to: .epochMillis, from: .epochSeconds), .int(1_486_397_020_000))
        XCTAssertEqual(try Conversion.convert(1_500, to: .epochSeconds, from: .epochMillis), json("1.5"))
    }

    func testAnObjectNewerThanEveryRegisteredVersionIsNotSilentlyDowngraded() throws {
        let store = try makeStore()
        let cache = try XCTUnwrap(store.cache(named: "c", create: true))
        try store.register("T", "3", #"{"fields":{"a":"string"}}"#)
        try cache.putObject("o", "T", #"{"a":"x"}"#)
        _ = try store.removeSchema("T")
        try store.register("T", "1", #"{"fields":{"a":"string"}}"#)
        let before = try cache.rawBytes("o")
        assertMigrationFailed { _ = try cache.readObject("o") }
        XCTAssertEqual(try cache.rawBytes("o"), before)
    }
}
