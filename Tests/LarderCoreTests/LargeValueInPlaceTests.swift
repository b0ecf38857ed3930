import XCTest
@testable import LarderCore
import LarderStorage

/// Values of `CacheSQL.inPlaceValueBytes` or more are stored over zeros and
/// read where they lie on SQLite (its incremental blob I/O), and whole on
/// PostgreSQL: on either, what is read back is what was written, byte for
/// byte, whatever it replaced and however it is read.
final class LargeValueInPlaceTests: StoreTestCase {
    private let large = CacheSQL.inPlaceValueBytes

    /// Bytes that differ from one position to the next and from one seed to
    /// another: a row left holding zeros, or another row's bytes, shows.
    private func pattern(_ count: Int, seed: UInt64) -> [UInt8] {
        var x = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        // Eight bytes a step: a debug build makes megabytes of these.
        let words = (0..<(count + 7) / 8).map { _ in
            x ^= x << 13; x ^= x >> 7; x ^= x << 17
            return x
        }
        return words.withUnsafeBytes { Array($0.prefix(count)) }
    }

    private func diskOnly(_ store: Store, _ name: String = "c") throws -> Cache {
        // Values this large never fit an eighth of the memory tier: read from disk.
        try openCache(store, name) { $0.memoryMaxBytes = 1 << 20 }
    }

    /// The value under `key` as the get of a request reads it: in place when left there.
    private func readAsAGetDoes(_ cache: Cache, _ key: String) throws -> (bytes: [UInt8], inPlace: Bool)? {
        var read: (bytes: [UInt8], inPlace: Bool)?
        var failure: StoreError?
        let found = try Array("g".utf8).withUnsafeBufferPointer { g in
            try Array(key.utf8).withUnsafeBufferPointer { k in
                try cache.get(group: g, key: k, { read = ($0.entry.bytes, false) }, inPlace: { found, value in
                    XCTAssertTrue(found.entry.bytes.isEmpty)
                    do throws(StoreError) { read = (try value.readAll(), true) } catch { failure = error }
                })
            }
        }
        if let failure { throw failure }
        return found ? read : nil
    }

    func testLargeValuesReadBackAsWrittenWhicheverWayTheyAreRead() throws {
        let store = try makeStore()
        let cache = try diskOnly(store)
        let data = pattern(large + 17, seed: 1)
        let json = Array("\"".utf8) + [UInt8](repeating: UInt8(ascii: "j"), count: large) + Array("\"".utf8)
        try cache.set([.init(key: EntryKey(group: "g", key: "data"), kind: .data, bytes: data, ttl: nil),
                       .init(key: EntryKey(group: "g", key: "json"), kind: .json, bytes: json, ttl: 60_000)])
        // Read in the transaction that wrote them, then after its commit.
        for _ in 0..<2 {
            XCTAssertEqual(try cache.lookup("data")?.entry.bytes, data)
            XCTAssertEqual(try cache.lookup("json")?.entry.bytes, json)
            let read = try XCTUnwrap(readAsAGetDoes(cache, "data"))
            XCTAssertEqual(read.bytes, data)
            XCTAssertEqual(read.inPlace, !TestEngine.isPostgreSQL, "left in place where the engine reads it there")
            XCTAssertEqual(try readAsAGetDoes(cache, "json")?.bytes, json)
            try store.commit()
        }
        let found = try XCTUnwrap(cache.lookup("json"))
        XCTAssertEqual(found.tier, .disk)
        XCTAssertEqual(found.entry.ttl, 60_000)
        XCTAssertEqual(found.entry.kind, .json)
        XCTAssertEqual(cache.bytes, data.count + json.count)
    }

    func testAValueJustUnderTheSizeIsReadWholeAndOneAtItIsLeftInPlace() throws {
        let store = try makeStore()
        let cache = try diskOnly(store)
        let under = pattern(large - 1, seed: 2), at = pattern(large, seed: 3)
        try cache.set([.init(key: EntryKey(group: "g", key: "under"), kind: .data, bytes: under, ttl: nil),
                       .init(key: EntryKey(group: "g", key: "at"), kind: .data, bytes: at, ttl: nil)])
        try store.commit()
        XCTAssertEqual(try readAsAGetDoes(cache, "under")?.bytes, under)
        XCTAssertEqual(try readAsAGetDoes(cache, "under")?.inPlace, false)
        XCTAssertEqual(try readAsAGetDoes(cache, "at")?.bytes, at)
        XCTAssertEqual(try readAsAGetDoes(cache, "at")?.inPlace, !TestEngine.isPostgreSQL)
    }

    func testOverwritesOfEverySizeLeaveOnlyTheLastValue() throws {
        let store = try makeStore()
        let cache = try diskOnly(store)
        let values = [pattern(large * 2, seed: 4), pattern(large, seed: 5), Array("small".utf8), pattern(large + 3, seed: 6),
                      pattern(large * 3, seed: 7)]
        for (i, value) in values.enumerated() {
            try cache.set([.init(key: EntryKey(group: "g", key: "k"), kind: .data, bytes: value, ttl: nil)])
            XCTAssertEqual(try readAsAGetDoes(cache, "k")?.bytes, value, "value \(i), before its commit")
            if i % 2 == 1 { try store.commit() }
            XCTAssertEqual(try cache.lookup("k")?.entry.bytes, value, "value \(i)")
        }
        try store.commit()
        store.close()
        let reopened = try diskOnly(makeStore())
        XCTAssertEqual(try readAsAGetDoes(reopened, "k")?.bytes, values.last)
        XCTAssertEqual(reopened.count, 1)
        XCTAssertEqual(reopened.bytes, large * 3)
    }

    func testALargeValueRolledBackLeavesTheOneBefore() throws {
        let store = try makeStore()
        let cache = try diskOnly(store)
        let kept = pattern(large, seed: 8)
        try cache.set([.init(key: EntryKey(group: "g", key: "k"), kind: .data, bytes: kept, ttl: nil)])
        try store.commit()
        try cache.set([.init(key: EntryKey(group: "g", key: "k"), kind: .data, bytes: pattern(large * 2, seed: 9), ttl: nil),
                       .init(key: EntryKey(group: "g", key: "new"), kind: .data, bytes: pattern(large, seed: 10), ttl: nil)])
        store.transactions.rollBack()
        XCTAssertEqual(try readAsAGetDoes(cache, "k")?.bytes, kept)
        XCTAssertNil(try readAsAGetDoes(cache, "new"))
    }

    func testAnEncryptedCacheStoresAndReadsLargeValuesWhole() throws {
        let store = try makeStore()
        store.useEncryptionKeys(EncryptionKeys(key: try EncryptionKey(base64: "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="), byCache: [:]))
        let cache = try openCache(store, "vault") {
            $0.encrypted = true
            $0.memoryMaxBytes = 1 << 20
        }
        let value = pattern(large * 2, seed: 11)
        try cache.set([.init(key: EntryKey(group: "g", key: "k"), kind: .data, bytes: value, ttl: nil)])
        try store.commit()
        let read = try XCTUnwrap(readAsAGetDoes(cache, "k"))
        XCTAssertEqual(read.bytes, value)
        XCTAssertFalse(read.inPlace, "a sealed value is opened whole")
    }

    /// A value left in place is read as it was at the lookup: another
    /// process's commit in between (WAL lets it write) is not seen.
    func testAValueLeftInPlaceIsReadAsItWasWhenFound() throws {
        try requireSQLite("reads a value in place with SQLite's blob I/O while another connection writes")
        let store = try makeStore()
        let cache = try diskOnly(store)
        let before = pattern(large, seed: 12), after = pattern(large, seed: 13)
        try cache.set([.init(key: EntryKey(group: "g", key: "k"), kind: .data, bytes: before, ttl: nil)])
        try store.commit()
        let other = try makeStore()
        let otherCache = try diskOnly(other)
        var read: [UInt8]?
        _ = try Array("g".utf8).withUnsafeBufferPointer { g in
            try Array("k".utf8).withUnsafeBufferPointer { k in
                try cache.get(group: g, key: k, { _ in XCTFail("left in place") }, inPlace: { _, value in
                    do throws(StoreError) {
                        try otherCache.set([.init(key: EntryKey(group: "g", key: "k"), kind: .data, bytes: after, ttl: nil)])
                        try other.commit()
                        read = try value.readAll()
                    } catch {
                        XCTFail("\(error)")
                    }
                })
            }
        }
        XCTAssertEqual(read, before)
        XCTAssertEqual(try readAsAGetDoes(cache, "k")?.bytes, after, "the next read sees the commit")
    }

    /// Zeros stand in for a large value only in a row's last column, so
    /// `value` must stay last in every store, new or upgraded.
    func testValueIsTheLastColumnOfANewStoresEntries() throws {
        try requireSQLite("SQLite's layout")
        let store = try makeStore()
        XCTAssertEqual(try columns(of: store).last, "value")
    }

    func testAStoreOfSchemaSixOpensWithItsEntriesAndValueLast() throws {
        try requireSQLite("upgrades a store SQLite wrote in an older layout")
        let store = try makeStore()
        let cache = try diskOnly(store)
        let value = pattern(large + 5, seed: 14)
        try cache.set([.init(key: EntryKey(group: "g", key: "big"), kind: .data, bytes: value, ttl: nil),
                       .init(key: EntryKey(group: "g", key: "small"), kind: .json, bytes: Array("[1,2]".utf8), ttl: 5_000)])
        try store.commit()
        // As schema 6 left it: `value` after `kind`, the later columns as added.
        try store.database.execute("""
            CREATE TABLE entries_6 (id INTEGER PRIMARY KEY, cache INTEGER NOT NULL, grp TEXT NOT NULL, key TEXT NOT NULL,
                kind INTEGER NOT NULL, value BLOB NOT NULL, size INTEGER NOT NULL, stored_at INTEGER NOT NULL,
                validated_at INTEGER NOT NULL, ttl INTEGER, used INTEGER NOT NULL, expires_at INTEGER, sealed_key BLOB,
                UNIQUE (cache, grp, key));
            INSERT INTO entries_6 SELECT id, cache, grp, key, kind, value, size, stored_at, validated_at, ttl, used, expires_at, sealed_key FROM entries;
            DROP TABLE entries;
            ALTER TABLE entries_6 RENAME TO entries;
            CREATE INDEX entries_by_use ON entries (cache, used);
            CREATE INDEX entries_by_expiry ON entries (cache, expires_at) WHERE expires_at IS NOT NULL;
            DROP TABLE entry_revisions; DROP TABLE locks; DROP TABLE fetch_leases;
            PRAGMA user_version = 6
            """)
        XCTAssertEqual(try columns(of: store)[5], "value")
        store.close()

        let upgraded = try makeStore()
        XCTAssertEqual(try upgraded.database.integer("PRAGMA user_version"), StoreLayout.stepsRecorded(.sqlite))
        XCTAssertEqual(try columns(of: upgraded).last, "value")
        XCTAssertEqual(try upgraded.database.integer(
            "SELECT COUNT(*) FROM sqlite_schema WHERE type = 'index' AND name IN ('entries_by_use', 'entries_by_expiry')"), 2)
        let again = try diskOnly(upgraded)
        XCTAssertEqual(try readAsAGetDoes(again, "big")?.bytes, value)
        let small = try XCTUnwrap(again.lookup("small"))
        XCTAssertEqual(small.entry.bytes, Array("[1,2]".utf8))
        XCTAssertEqual(small.expiresAt, 1_000_000 + 5_000)
        XCTAssertEqual(again.count, 2)
    }

    private func columns(of store: Store) throws -> [String] {
        let s = try store.database.statement("SELECT name FROM pragma_table_info('entries') ORDER BY cid")
        defer { s.reset() }
        var names: [String] = []
        while try s.step() { names.append(try s.string(0)) }
        return names
    }
}
