import XCTest
import LarderJSON
@testable import LarderCore

/// `readObject(writeBack: false)`: the migrated object is returned, and nothing is written.
final class MigrationDryRunTests: StoreTestCase {
    func testADryRunChangesNothing() throws {
        let store = try makeStore()
        let cache = try openCache(store)
        try store.register("Note", "1", #"{"fields":{"text":"string","stars":"integer"}}"#)
        let original = try cache.putObject("n1", "Note", #"{"text":"first","stars":3}"#).json.encoded
        try store.register("Note", "2", #"{"fields":{"body":"string","rating":"string"},"migrations":[{"from":"1","steps":[{"op":"rename","from":"text","to":"body"},{"op":"convert","field":"stars","to":"string"},{"op":"rename","from":"stars","to":"rating"}]}]}"#)
        try store.commit()

        let dry = try cache.readObject("n1", writeBack: false)
        XCTAssertEqual(dry.migratedFrom?.text, "1")
        XCTAssertEqual(dry.migratedObject?.plainValue, json(#"{"body":"first","rating":"3"}"#))
        XCTAssertEqual(try cache.rawBytes("n1"), original)
        XCTAssertEqual(try cache.rawObject("n1")?.version.text, "1")
        XCTAssertFalse(store.hasPendingWrites, "a dry run opens no write")

        // Again: still a migration, since nothing was written.
        XCTAssertEqual(try cache.readObject("n1", writeBack: false).migratedFrom?.text, "1")
        // The real read writes it back.
        let real = try XCTUnwrap(cache.readObject("n1").migratedObject)
        XCTAssertEqual(real.json, dry.migratedObject?.json)
        XCTAssertEqual(try cache.rawObject("n1")?.version.text, "2")
        XCTAssertNotNil(try cache.readObject("n1", writeBack: false).currentObject)
    }

    func testADryRunOfANestedUpgradeChangesNothing() throws {
        let store = try makeStore(inMemory: true)
        let cache = try openCache(store)
        try store.register("Bar", "1", #"{"fields":{"s":"string"}}"#)
        try store.register("Holder", "1", #"{"fields":{"bar":{"ref":"Bar"}}}"#)
        let original = try cache.putObject("h", "Holder", #"{"bar":{"s":"x"}}"#).json.encoded
        try store.register("Bar", "2", #"{"fields":{"t":"string"},"migrations":[{"from":"1","steps":[{"op":"rename","from":"s","to":"t"}]}]}"#)
        XCTAssertEqual(try cache.readObject("h", writeBack: false).migratedObject?.plainValue, json(#"{"bar":{"t":"x"}}"#))
        XCTAssertEqual(try cache.rawBytes("h"), original)
    }
}
