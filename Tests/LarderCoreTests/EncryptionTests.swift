#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import LarderJSON
import XCTest
@testable import LarderCore
import LarderStorage

/// Encrypted caches (SPEC 6.10): nothing of their keys or values reaches the
/// store's files in clear, a wrong or missing key reads and writes nothing,
/// a changed value fails alone, and a rekey re-seals everything.
final class EncryptionTests: StoreTestCase {
    private let key = try! EncryptionKey(base64: "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=")
    private let otherKey = try! EncryptionKey(base64: "HxwdHhsZGhcYFRYTFBESDxAODA0KCwgJBgcEBQIDAAE=")

    private func keyedStore(_ key: EncryptionKey? = nil, byCache: [String: EncryptionKey] = [:]) throws -> Store {
        let store = try makeStore()
        store.useEncryptionKeys(EncryptionKeys(key: key ?? self.key, byCache: byCache))
        return store
    }

    private func encrypted(_ store: Store, _ name: String = "c", _ configure: (inout CacheConfigChange) -> Void = { _ in }) throws -> Cache {
        try openCache(store, name) {
            $0.encrypted = true
            configure(&$0)
        }
    }

    private func assertEncryptionError(_ problem: StoreError.EncryptionProblem, file: StaticString = #filePath, line: UInt = #line,
                                       _ body: () throws -> Void) {
        do {
            try body()
            XCTFail("expected \(problem), nothing was thrown", file: file, line: line)
        } catch let StoreError.encryption(_, p) {
            XCTAssertEqual(p, problem, file: file, line: line)
        } catch {
            XCTFail("expected \(problem), got \(error)", file: file, line: line)
        }
    }

    /// Every file under the store directory, as bytes.
    /// (Read with stdio: Foundation's `Data(contentsOf:)` leaks a buffer per
    /// file, which LeakSanitizer reports.)
    private func storeFiles() throws -> [(name: String, bytes: [UInt8])] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).map { name in
            let file = try XCTUnwrap(fopen(directory.path + "/" + name, "rb"), "cannot read \(name)")
            defer { fclose(file) }
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let n = fread(&chunk, 1, chunk.count, file)
                if n == 0 { break }
                bytes += chunk[..<n]
            }
            return (name, bytes)
        }
    }

    private func assertNoPlaintext(_ markers: [String], _ moment: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let files = try storeFiles()
        XCTAssertFalse(files.isEmpty, file: file, line: line)
        for (name, content) in files {
            for marker in markers {
                let needle = Array(marker.utf8)
                let found = Data(content).range(of: Data(needle)) != nil
                XCTAssertFalse(found, "\(marker) in clear in \(name) \(moment)", file: file, line: line)
            }
        }
    }

    func testNoKeyOrValueReachesTheStoreFilesInClear() throws {
        try requireSQLite("scans the store files")
        let store = try keyedStore()
        let cache = try encrypted(store, "vault") { $0.diskMaxCount = 40 }
        try store.register("Card", "1", #"{"fields":{"holder":"string"}}"#)
        var markers: [String] = []
        for i in 0..<60 {
            let (k, g, v) = ("KEYMARK\(i)X", "GROUPMARK\(i % 3)X", "VALUEMARK\(i)X")
            markers += [k, v]
            try cache.put(k, v, group: g)
        }
        markers += ["GROUPMARK0X", "GROUPMARK1X", "GROUPMARK2X"]
        try cache.putObject("OBJKEYMARK", "Card", #"{"holder":"OBJVALUEMARK"}"#, group: "")
        markers += ["OBJKEYMARK", "OBJVALUEMARK"]
        try store.commit()
        try assertNoPlaintext(markers, "after writes (the WAL holds them)")
        // Overwrites and deletes leave old pages behind: they held ciphertext only.
        for i in 0..<20 { try cache.put("KEYMARK\(i)X", "VALUEMARK\(i)XOVER", group: "GROUPMARK\(i % 3)X") }
        markers += (0..<20).map { "VALUEMARK\($0)XOVER" }
        for i in 20..<30 { _ = try cache.remove(EntryKey(group: "GROUPMARK\(i % 3)X", key: "KEYMARK\(i)X")) }
        try store.commit()
        try assertNoPlaintext(markers, "after overwrites, deletes and evictions")
        try store.database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        try assertNoPlaintext(markers, "after a checkpoint")
        try store.database.execute("VACUUM")
        try store.database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        try assertNoPlaintext(markers, "after VACUUM")
        // And all of it reads back, from disk, in a new store.
        store.close()
        let reopened = try keyedStore()
        let again = try XCTUnwrap(reopened.cache(named: "vault", create: false))
        XCTAssertEqual(try again.text("KEYMARK5X", group: "GROUPMARK2X"), "VALUEMARK5XOVER")
        let keys = try again.allKeys(group: "GROUPMARK0X")
        XCTAssertEqual(keys, keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        XCTAssertEqual(keys.count, again.count - (try again.allKeys(group: "GROUPMARK1X").count) - (try again.allKeys(group: "GROUPMARK2X").count) - 1,
                       "every entry of the three groups and the object, each listed once")
        for k in keys { XCTAssertNotNil(try again.text(k, group: "GROUPMARK0X")) }
    }

    /// The same test as above catches a plain cache: the scan can fail.
    func testTheScanFindsAPlainCachesValues() throws {
        try requireSQLite("scans the store files")
        let store = try keyedStore()
        let cache = try openCache(store, "plain")
        try cache.put("PLAINKEY", "PLAINVALUE")
        try store.commit()
        let files = try storeFiles()
        XCTAssertTrue(files.contains { f in String(decoding: f.bytes, as: UTF8.self).contains("PLAINVALUE") })
    }

    func testAWrongOrMissingKeyReadsAndWritesNothing() throws {
        let store = try keyedStore()
        let cache = try encrypted(store)
        try cache.put("k", "secret")
        try store.commit()
        store.close()

        let wrong = try keyedStore(otherKey)
        let c = try XCTUnwrap(wrong.cache(named: "c", create: false))
        assertEncryptionError(.keyMismatch) { _ = try c.text("k") }
        assertEncryptionError(.keyMismatch) { try c.put("k", "overwritten") }
        assertEncryptionError(.keyMismatch) { _ = try c.allKeys() }
        assertEncryptionError(.keyMismatch) { _ = try wrong.open("c", change: CacheConfigChange()) }
        try wrong.commit()
        wrong.useEncryptionKeys(EncryptionKeys(key: nil))
        assertEncryptionError(.keyRequired) { _ = try c.text("k") }
        assertEncryptionError(.keyRequired) { _ = try self.encrypted(wrong, "new") }
        XCTAssertNil(try wrong.cache(named: "new", create: false), "nothing was created without a key")
        // Emptying the whole cache reads no key or value, and needs none; the stats too.
        XCTAssertEqual(c.count, 1)
        wrong.close()

        let right = try keyedStore()
        XCTAssertEqual(try XCTUnwrap(right.cache(named: "c", create: false)).text("k"), "secret", "nothing was overwritten")
    }

    func testEncryptionIsFixedAtCreation() throws {
        let store = try keyedStore()
        _ = try encrypted(store)
        assertInvalidArgument(field: "encrypted") { _ = try self.openCache(store) { $0.encrypted = false } }
        _ = try openCache(store, "plain")
        assertInvalidArgument(field: "encrypted") { _ = try self.encrypted(store, "plain") }
    }

    func testAChangedValueFailsAloneAndCanBeRemoved() throws {
        let store = try keyedStore()
        let cache = try encrypted(store)
        try cache.put("a", "first")
        try cache.put("b", "second")
        try store.commit()
        // Flip one byte of b's sealed value, as damage or tampering would.
        try store.database.statement("UPDATE entries SET value = substr(value, 1, 20) || ? || substr(value, 22) WHERE size = 6")
            .bind(1, blob: [0]).run()
        store.close()
        let reopened = try keyedStore()
        let c = try XCTUnwrap(reopened.cache(named: "c", create: false))
        XCTAssertThrowsError(try c.text("b")) { XCTAssertEqual($0 as? StoreError, .integrity(cache: "c", key: "b")) }
        XCTAssertEqual(try c.text("a"), "first")
        XCTAssertTrue(try c.remove(EntryKey(group: "g", key: "b")))
        XCTAssertNil(try c.text("b"))
    }

    func testAValueMovedToAnotherKeyDoesNotOpen() throws {
        let store = try keyedStore()
        let cache = try encrypted(store)
        try cache.put("a", "for a")
        try cache.put("b", "for b")
        try store.commit()
        try store.database.execute("""
            UPDATE entries SET value = (SELECT value FROM entries WHERE id = (SELECT MIN(id) FROM entries))
            WHERE id = (SELECT MAX(id) FROM entries)
            """)
        store.close()
        let c = try XCTUnwrap(try keyedStore().cache(named: "c", create: false))
        XCTAssertThrowsError(try c.text("b")) { XCTAssertEqual($0 as? StoreError, .integrity(cache: "c", key: "b")) }
        XCTAssertEqual(try c.text("a"), "for a")
    }

    /// Copies the sealed key of the first row onto the last, as someone with
    /// write access to the store could.
    private func copyFirstSealedKeyOntoLast(_ store: Store) throws {
        try store.database.execute("""
            UPDATE entries SET sealed_key = (SELECT sealed_key FROM entries WHERE id = (SELECT MIN(id) FROM entries))
            WHERE id = (SELECT MAX(id) FROM entries)
            """)
    }

    func testASealedKeyCopiedOntoAnotherRowIsReportedNotListed() throws {
        let store = try keyedStore()
        let cache = try encrypted(store)
        for k in ["a", "b", "c"] { try cache.put(k, "for \(k)") }
        try store.commit()
        try copyFirstSealedKeyOntoLast(store)
        store.close()
        let c = try XCTUnwrap(try keyedStore().cache(named: "c", create: false))
        // Not ["a", "a", "b"]: the listing stops at the row whose key is not its own.
        XCTAssertThrowsError(try c.allKeys()) { XCTAssertEqual($0 as? StoreError, .integrity(cache: "c", key: nil)) }
        XCTAssertThrowsError(try c.groups(prefix: "", after: nil, limit: 10)) { XCTAssertEqual($0 as? StoreError, .integrity(cache: "c", key: nil)) }
        // Each value is still bound to its own key: reads by key are unaffected.
        for k in ["a", "b", "c"] { XCTAssertEqual(try c.text(k), "for \(k)") }
        XCTAssertTrue(try c.remove(EntryKey(group: "g", key: "c")))
        XCTAssertEqual(try c.allKeys(), ["a", "b"])
    }

    func testARowSavedBeforeADropDoesNotOpenInTheCacheMadeAgain() throws {
        let store = try keyedStore()
        let cache = try encrypted(store)
        try cache.put("a", "before the drop")
        try store.commit()
        try store.database.execute("CREATE TABLE saved AS SELECT * FROM entries")
        try store.drop("c")
        try store.commit()
        let again = try encrypted(store)
        try again.put("b", "after")
        try store.commit()
        try store.database.execute("""
            INSERT INTO entries (cache, grp, key, kind, value, size, stored_at, validated_at, ttl, used, expires_at, sealed_key, revision)
            SELECT (SELECT id FROM caches WHERE name = 'c'), grp, key, kind, value, size, stored_at, validated_at, ttl, used, expires_at, sealed_key,
                revision FROM saved
            """)
        store.close()
        let c = try XCTUnwrap(try keyedStore().cache(named: "c", create: false))
        XCTAssertThrowsError(try c.text("a")) { XCTAssertEqual($0 as? StoreError, .integrity(cache: "c", key: "a")) }
        XCTAssertEqual(try c.text("b"), "after")
        XCTAssertThrowsError(try c.allKeys()) { XCTAssertEqual($0 as? StoreError, .integrity(cache: "c", key: nil)) }
        XCTAssertTrue(try c.remove(EntryKey(group: "g", key: "a")))
        XCTAssertEqual(try c.allKeys(), ["b"])
    }

    func testARowSavedBeforeARekeyDoesNotOpenAfterIt() throws {
        let store = try keyedStore()
        let cache = try encrypted(store)
        try cache.put("a", "old")
        try store.commit()
        try store.database.execute("CREATE TABLE saved AS SELECT * FROM entries")
        try cache.put("a", "new")
        // A rekey to the very same key: its lookup MACs stay, its generation does not.
        let rekey = try cache.beginRekey(to: key)
        XCTAssertTrue(try rekey.step(limit: 10))
        try store.commit()
        rekey.adopt()
        XCTAssertEqual(try cache.text("a"), "new")
        try store.database.execute("""
            UPDATE entries SET value = (SELECT value FROM saved), sealed_key = (SELECT sealed_key FROM saved)
            """)
        store.close()
        let c = try XCTUnwrap(try keyedStore().cache(named: "c", create: false))
        XCTAssertThrowsError(try c.text("a")) { XCTAssertEqual($0 as? StoreError, .integrity(cache: "c", key: "a")) }
        XCTAssertThrowsError(try c.allKeys()) { XCTAssertEqual($0 as? StoreError, .integrity(cache: "c", key: nil)) }
    }

    /// An encrypted cache written before generations: what it holds reads
    /// as before, a sealed key copied onto another row is caught all the
    /// same, and a rekey moves it to a generation.
    func testACacheSealedBeforeGenerationsKeepsReadingUntilRekeyed() throws {
        let store = try keyedStore()
        _ = try encrypted(store)
        try store.commit()
        try store.database.execute("UPDATE caches SET generation = NULL")
        store.close()
        let first = try keyedStore()
        let cache = try XCTUnwrap(first.cache(named: "c", create: false))
        for k in ["a", "b", "c"] { try cache.put(k, "for \(k)") }
        try first.commit()
        try copyFirstSealedKeyOntoLast(first)
        first.close()

        let reopened = try keyedStore()
        let c = try XCTUnwrap(reopened.cache(named: "c", create: false))
        XCTAssertThrowsError(try c.allKeys()) { XCTAssertEqual($0 as? StoreError, .integrity(cache: "c", key: nil)) }
        XCTAssertTrue(try c.remove(EntryKey(group: "g", key: "c")))
        XCTAssertEqual(try c.allKeys(), ["a", "b"])
        let rekey = try c.beginRekey(to: key)
        XCTAssertTrue(try rekey.step(limit: 10))
        try reopened.commit()
        rekey.adopt()
        XCTAssertEqual(try reopened.database.integer("SELECT COUNT(*) FROM caches WHERE generation IS NOT NULL"), 1)
        reopened.close()
        let rekeyed = try XCTUnwrap(try keyedStore().cache(named: "c", create: false))
        XCTAssertEqual(try rekeyed.allKeys(), ["a", "b"])
        XCTAssertEqual(try rekeyed.text("b"), "for b")
    }

    func testAStoreOfSchemaFiveOpensWithItsEncryptedCaches() throws {
        try requireSQLite("upgrades a store SQLite wrote in an older layout")
        let store = try keyedStore()
        _ = try encrypted(store)
        try store.commit()
        try store.database.execute("UPDATE caches SET generation = NULL")
        store.close()
        let older = try keyedStore()
        try XCTUnwrap(older.cache(named: "c", create: false)).put("a", "sealed by schema 5")
        try older.commit()
        // As schema 5 left it.
        try older.database.execute("""
            ALTER TABLE caches DROP COLUMN generation; ALTER TABLE caches DROP COLUMN rekey_generation;
            ALTER TABLE entries DROP COLUMN revision; DROP TABLE entry_revisions; DROP TABLE locks; DROP TABLE fetch_leases; PRAGMA user_version = 5
            """)
        older.close()
        let c = try XCTUnwrap(try keyedStore().cache(named: "c", create: false))
        XCTAssertEqual(try c.text("a"), "sealed by schema 5")
        XCTAssertEqual(try c.allKeys(), ["a"])
    }

    func testCachesOfOneKeySealApart() throws {
        let store = try keyedStore(byCache: ["mine": otherKey])
        let one = try encrypted(store, "one")
        let mine = try encrypted(store, "mine")
        try one.put("k", "same")
        try mine.put("k", "same")
        try store.commit()
        let s = try store.database.statement("SELECT grp, key, value FROM entries ORDER BY id")
        var rows: [[UInt8]] = []
        while try s.step() { rows.append(try s.blob(0) + s.blob(1) + s.blob(2)) }
        s.reset()
        XCTAssertEqual(rows.count, 2)
        XCTAssertNotEqual(rows[0], rows[1], "another cache, another key: nothing in common")
        store.close()
        // A key given for one cache does not open the others.
        let other = try keyedStore(otherKey)
        assertEncryptionError(.keyMismatch) { _ = try XCTUnwrap(other.cache(named: "one", create: false)).text("k") }
        XCTAssertEqual(try XCTUnwrap(other.cache(named: "mine", create: false)).text("k"), "same")
    }

    func testLimitsExpiryKeysAndObjectsWorkAsOnAPlainCache() throws {
        let clock = Clock(fixedAt: 1_000_000)
        let store = try makeStore(clock: clock)
        store.useEncryptionKeys(EncryptionKeys(key: key))
        let log = EventLog()
        log.attach(to: store)
        let cache = try encrypted(store) { $0.diskMaxCount = 3; $0.lifespan = 10_000 }
        for k in ["d", "b", "a", "c"] { try cache.put(k, "v-\(k)") }
        XCTAssertEqual(log.evictedKeys(tier: .disk), ["d"], "the least recently used, named in clear")
        XCTAssertEqual(try cache.allKeys(), ["a", "b", "c"])
        XCTAssertEqual(try cache.keys(group: "g", prefix: "", after: "a", limit: 1), ["b"])
        try cache.put("short", "x", ttl: 10)
        XCTAssertTrue(clock.advance(milliseconds: 20))
        XCTAssertEqual(try cache.purgeExpired(group: nil), 1)
        XCTAssertEqual(log.evictedKeys(tier: .disk, reason: .expired), ["short"])
        try store.register("Note", "1", #"{"fields":{"text":"string"}}"#)
        for k in ["n2", "n1"] { try cache.putObject(k, "Note", #"{"text":"\#(k)"}"#, group: "") }
        XCTAssertEqual(try cache.objectKeys(after: nil, limit: 10).map(\.key), ["n1", "n2"])
        XCTAssertEqual(try cache.objectKeys(after: EntryKey(group: "", key: "n1"), limit: 10).map(\.key), ["n2"])
        try store.commit()
        store.close()
        let reopened = try makeStore(clock: clock)
        reopened.useEncryptionKeys(EncryptionKeys(key: key))
        let c = try XCTUnwrap(reopened.cache(named: "c", create: false))
        guard case .current(let note) = try c.readObject(EntryKey(group: "", key: "n1")) else { return XCTFail("n1 not read back") }
        XCTAssertEqual(note.plainValue, ["text": "n1"])
    }

    func testRekeyReSealsEverythingAndResumesWhereItStopped() throws {
        let store = try keyedStore()
        let cache = try encrypted(store)
        for i in 0..<25 { try cache.put("k\(i)", "v\(i)") }
        try store.commit()
        let before = try sealedRows(store)

        let rekey = try cache.beginRekey(to: otherKey)
        assertEncryptionError(.rekeyRunning) { _ = try cache.text("k1") }
        XCTAssertFalse(try rekey.step(limit: 10))
        try store.commit()
        XCTAssertFalse(try rekey.step(limit: 10))
        try store.commit()
        // Stopped here, as by kill -9: 20 rows under the new key, 5 under the old.
        rekey.abandon()
        store.close()

        let stopped = try keyedStore()
        let c = try XCTUnwrap(stopped.cache(named: "c", create: false))
        assertEncryptionError(.rekeyInterrupted) { _ = try c.text("k1") }
        assertInvalidArgument(field: "key") {
            _ = try c.beginRekey(to: EncryptionKey(base64: "AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE="))
        }
        let resumed = try c.beginRekey(to: otherKey)
        XCTAssertTrue(resumed.resumed)
        XCTAssertTrue(try resumed.step(limit: 10))
        XCTAssertEqual(resumed.resealed, 5, "only what the first run left")
        try stopped.commit()
        resumed.adopt()
        XCTAssertEqual(try c.text("k24"), "v24", "this session uses the new key from now on")
        stopped.close()

        let after = try sealedRows(try keyedStore(otherKey))
        XCTAssertEqual(after.count, before.count)
        XCTAssertTrue(zip(before, after).allSatisfy { $0 != $1 }, "every row re-sealed")
        let old = try keyedStore()
        assertEncryptionError(.keyMismatch) { _ = try XCTUnwrap(old.cache(named: "c", create: false)).text("k1") }
        old.close()
        let new = try keyedStore(otherKey)
        let n = try XCTUnwrap(new.cache(named: "c", create: false))
        for i in 0..<25 { XCTAssertEqual(try n.text("k\(i)"), "v\(i)") }
        XCTAssertEqual(try n.allKeys().count, 25)
    }

    private func sealedRows(_ store: Store) throws -> [[UInt8]] {
        let s = try store.database.statement("SELECT grp || key, value FROM entries ORDER BY id")
        defer { s.reset() }
        var rows: [[UInt8]] = []
        while try s.step() { rows.append(try s.blob(0) + s.blob(1)) }
        return rows
    }

    func testKeysAreTakenOnlyAsThirtyTwoBytes() throws {
        XCTAssertThrowsError(try EncryptionKey(base64: "c2hvcnQ="))
        XCTAssertThrowsError(try EncryptionKey(base64: "not base64!"))
        let path = directory.path + "/key"
        _ = FileManager.default.createFile(atPath: path, contents: Data(repeating: 7, count: 32), attributes: [.posixPermissions: 0o644])
        XCTAssertThrowsError(try EncryptionKey(file: path)) { error in
            XCTAssertTrue((error as? EncryptionKey.Refusal)?.reason.contains("chmod 600") == true, "\(error)")
        }
        chmod(path, 0o600)
        XCTAssertEqual(try EncryptionKey(file: path), try EncryptionKey(base64: Data(repeating: 7, count: 32).base64EncodedString()))
        _ = FileManager.default.createFile(atPath: path, contents: Data((key.bytes.base64 + "\n").utf8), attributes: [.posixPermissions: 0o600])
        XCTAssertEqual(try EncryptionKey(file: path), key)
    }

    /// Three forms no file can be two of: 64 hex digits, base64 of 32 bytes
    /// (44 characters), 32 raw bytes that are not all text.
    func testAKeyFileHoldsOneOfThreeFormsAndNothingAmbiguous() throws {
        let path = directory.path + "/key"
        func write(_ bytes: [UInt8]) { _ = FileManager.default.createFile(atPath: path, contents: Data(bytes), attributes: [.posixPermissions: 0o600]) }
        let hex = key.bytes.map { String($0, radix: 16) }.map { $0.count == 1 ? "0" + $0 : $0 }.joined()
        for text in [hex, hex.uppercased(), "  " + hex + "\r\n", key.bytes.base64, key.bytes.base64 + "\n"] {
            write(Array(text.utf8))
            XCTAssertEqual(try EncryptionKey(file: path), key, text)
        }
        write(key.bytes.map { $0 | 0x80 })
        XCTAssertNoThrow(try EncryptionKey(file: path), "raw bytes, not all text")

        let forms = "a key file holds 64 hexadecimal digits, base64 of 32 bytes (44 characters), or 32 raw bytes (head -c 32 /dev/urandom)"
        let refused: [([UInt8], String)] = [
            (Array("0123456789abcdef0123456789abcdef".utf8), "holds 32 characters of text, which could be the key's 32 bytes or a shorter key encoded; " + forms),
            (Array(Data(repeating: 1, count: 24).base64EncodedString().utf8), "holds 32 characters of text"),
            (Array(String(hex.dropLast()).utf8), "holds no key (63 bytes); " + forms),
            (Array((hex + "00").utf8), "holds no key (66 bytes)"),
            (Array(repeating: 0x41, count: 5000), "is larger than 4096 bytes; " + forms),
            ([], "holds no key (0 bytes)"),
        ]
        for (content, reason) in refused {
            write(content)
            XCTAssertThrowsError(try EncryptionKey(file: path)) { error in
                let message = (error as? EncryptionKey.Refusal)?.reason ?? ""
                XCTAssertTrue(message.contains("key file \(path) " + reason), message)
            }
        }
    }

    func testAKeyFileThatIsNotARegularFileIsRefusedWithoutReadingIt() throws {
        let fifo = directory.path + "/fifo"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let kinds = [(fifo, "a FIFO"), (directory.path, "a directory"), ("/dev/null", "a character device")]
        for (path, kind) in kinds {
            XCTAssertThrowsError(try EncryptionKey(file: path)) { error in
                let message = (error as? EncryptionKey.Refusal)?.reason ?? ""
                XCTAssertTrue(message.contains("key file \(path) is \(kind), not a regular file"), message)
            }
        }
    }
}

extension Array where Element == UInt8 {
    fileprivate var base64: String { Data(self).base64EncodedString() }
}

/// The primitives against their RFCs' test vectors.
final class CryptoVectorTests: XCTestCase {
    private func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    func testHMACSHA256MatchesRFC4231() throws {
        let mac = try HMAC(key: [UInt8](repeating: 0x0B, count: 20)).mac(Array("Hi There".utf8))
        XCTAssertEqual(hex(mac), "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        // A key longer than a block is hashed first (test case 6), and parts concatenate.
        let long = try HMAC(key: [UInt8](repeating: 0xAA, count: 131))
            .mac(Array("Test Using Larger Than Block-Size Key - ".utf8), Array("Hash Key First".utf8))
        XCTAssertEqual(hex(long), "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    func testHKDFMatchesRFC5869() throws {
        let okm = try Crypto.hkdf(secret: [UInt8](repeating: 0x0B, count: 22), salt: Array(0x00...0x0C), info: Array(0xF0...0xF9))
        XCTAssertEqual(hex(okm), "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf")
    }

    func testSealedValuesOpenOnlyWithTheirAssociatedDataAndNeverRepeatANonce() throws {
        let gcm = try AESGCM(key: [UInt8](repeating: 7, count: 32))
        let plain = Array("value".utf8)
        var nonces = Set<[UInt8]>()
        for _ in 0..<1000 {
            let sealed = try plain.withUnsafeBufferPointer { (p) throws(StoreError) in try gcm.seal(p, associated: [1, 2]) }
            XCTAssertTrue(nonces.insert(Array(sealed[1...12])).inserted)
            XCTAssertEqual(try gcm.open(sealed, associated: [1, 2]), plain)
            XCTAssertThrowsError(try gcm.open(sealed, associated: [1, 3]))
        }
    }
}
