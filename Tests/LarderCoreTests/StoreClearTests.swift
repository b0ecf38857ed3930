import XCTest
import LarderJSON
@testable import LarderCore

/// `Store.clear`: every entry, only the objects, or only the plain entries of
/// every cache; durable stores only when asked; definitions and records never.
final class StoreClearTests: StoreTestCase {
    private var store: Store!
    private var log: EventLog!

    /// A persistent cache "disk", a memory-only cache "mem" and a durable store
    /// "prefs", each holding two plain entries and one object.
    override func setUp() {
        super.setUp()
        do {
            store = try makeStore()
            log = EventLog()
            try store.register("Note", "1", #"{"fields":{"text":"string"}}"#)
            let disk = try openCache(store, "disk")
            let mem = try openCache(store, "mem") { $0.persistent = false }
            let prefs = try openCache(store, "prefs") { $0.kind = .store }
            for c in [disk, mem, prefs] {
                try c.put("a", "1")
                try c.put("b", "22", kind: .json)
                try c.putObject("n", "Note", #"{"text":"x"}"#)
            }
            try store.commit()
            log.attach(to: store)
        } catch {
            XCTFail("setUp: \(error)")
        }
    }

    override func tearDown() {
        store = nil
        super.tearDown()
    }

    private func cache(_ name: String) throws -> Cache { try XCTUnwrap(store.cache(named: name, create: false)) }

    private func keys(_ name: String) throws -> [String] { try cache(name).allKeys() }

    private func removed(_ result: [(cache: String, removed: Int)]) -> [String] { result.map { "\($0.cache):\($0.removed)" } }

    func testObjectsOnlyLeavesPlainEntriesAndDurableStores() throws {
        XCTAssertEqual(removed(try store.clear(.objects, includingStores: false)), ["disk:1", "mem:1"])
        XCTAssertEqual(try keys("disk"), ["a", "b"])
        XCTAssertEqual(try keys("mem"), ["a", "b"])
        XCTAssertEqual(try keys("prefs"), ["a", "b", "n"])
        XCTAssertEqual(log.events, [.cleared(cache: "disk", group: nil, tier: .all, only: .objects),
                                    .cleared(cache: "mem", group: nil, tier: .all, only: .objects)])
        XCTAssertEqual(try cache("disk").count, 2)
        XCTAssertEqual(try cache("disk").bytes, 3)
    }

    func testPlainOnlyLeavesObjects() throws {
        XCTAssertEqual(removed(try store.clear(.plain, includingStores: false)), ["disk:2", "mem:2"])
        XCTAssertEqual(try keys("disk"), ["n"])
        XCTAssertEqual(try keys("mem"), ["n"])
        XCTAssertEqual(try cache("disk").objectCount(), 1)
        XCTAssertEqual(log.events, [.cleared(cache: "disk", group: nil, tier: .all, only: .plain),
                                    .cleared(cache: "mem", group: nil, tier: .all, only: .plain)])
    }

    func testAllWithStoresEmptiesEveryCacheAndKeepsDefinitionsAndRecords() throws {
        try store.define(bandsModel())
        try store.upsert("Band", japan)
        XCTAssertEqual(removed(try store.clear(.all, includingStores: true)), ["disk:3", "mem:3", "prefs:3"])
        for name in ["disk", "mem", "prefs"] {
            XCTAssertEqual(try keys(name), [], name)
            XCTAssertEqual(try cache(name).memoryCount, 0, name)
        }
        XCTAssertEqual(log.events.map(\.cache), ["disk", "mem", "prefs"])
        XCTAssertEqual(log.events.first, .cleared(cache: "disk", group: nil, tier: .all), "as cache.clear reports it")
        XCTAssertEqual(try store.versionTexts(of: "Note"), ["1"])
        XCTAssertNotNil(try store.record("Band", "Japan"))
    }

    func testNothingLeftToRemoveSendsNothing() throws {
        _ = try store.clear(.objects, includingStores: false)
        log.events = []
        XCTAssertEqual(removed(try store.clear(.objects, includingStores: false)), ["disk:0", "mem:0"])
        XCTAssertEqual(log.events, [])
    }

    func testWhatWasClearedStaysClearedAfterReopening() throws {
        _ = try store.clear(.objects, includingStores: true)
        try store.commit()
        store.close()
        let reopened = try makeStore()
        let disk = try XCTUnwrap(reopened.cache(named: "disk", create: false))
        XCTAssertEqual(try disk.allKeys(), ["a", "b"])
        XCTAssertEqual(try XCTUnwrap(reopened.cache(named: "prefs", create: false)).allKeys(), ["a", "b"])
    }
}

/// `Store.clear` goes by each entry's kind, which is never sealed: an encrypted
/// cache is cleared even by a session that holds no key for it.
final class EncryptedStoreClearTests: StoreTestCase {
    private let key = try! EncryptionKey(base64: "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=")

    func testClearingAnEncryptedCacheNeedsNoKey() throws {
        let writer = try makeStore()
        writer.useEncryptionKeys(EncryptionKeys(key: key, byCache: [:]))
        try writer.register("Note", "1", #"{"fields":{"text":"string"}}"#)
        let cache = try openCache(writer, "vault") { $0.encrypted = true }
        try cache.put("plain", "secret")
        try cache.putObject("note", "Note", #"{"text":"secret too"}"#)
        try writer.commit()
        writer.close()

        let keyless = try makeStore()
        XCTAssertEqual(try keyless.clear(.plain, includingStores: false).map(\.removed), [1])
        try keyless.commit()
        keyless.close()

        let reader = try makeStore()
        reader.useEncryptionKeys(EncryptionKeys(key: key, byCache: [:]))
        let reopened = try XCTUnwrap(reader.cache(named: "vault", create: false))
        XCTAssertEqual(try reopened.allKeys(), ["note"])
        XCTAssertEqual(reopened.count, 1)
    }
}
