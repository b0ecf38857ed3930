#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CSQLite
import Foundation
import LarderCore
import LarderJSON
import LarderSystem
import XCTest
import LarderSQLite

/// Another process holds the store's lock (SPEC 13). A write waits up to
/// the busy timeout, 5 seconds, then is -31002 and not made; reads are served
/// meanwhile (WAL readers need no lock); a burst waits once, not once per
/// write; the next burst waits again, and writes work once the lock is gone.
final class LockedStoreFaultTests: XCTestCase {
    private var store: TemporaryStore!

    override func setUp() {
        store = temporaryStore("locked")
    }

    /// Another SQLite connection to the store, holding its lock while it lives.
    private final class LockHolder {
        struct Failed: Error, CustomStringConvertible {
            let description: String
        }

        private var db: OpaquePointer?

        init(_ path: String, _ statements: [String]) throws {
            // SQLite is set up once per process, before its first connection, and
            // every test target shares this process: set it up as Larder does.
            SQLiteLibrary.configure()
            guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else {
                throw Failed(description: "cannot open \(path)")
            }
            for sql in statements where sqlite3_exec(db, sql, nil, nil, nil) != SQLITE_OK {
                throw Failed(description: "\(sql): \(String(cString: sqlite3_errmsg(db)))")
            }
        }

        func release() {
            sqlite3_close_v2(db)
            db = nil
        }

        deinit { release() }
    }

    private static func seconds(since start: Double) -> Double { MonotonicClock.seconds() - start }

    func testWritesWaitOncePerBurstThenAreRefusedWhileReadsAreServed() throws {
        let larder = try store.start()
        XCTAssertEqual(larder.set("k", "kept")?["result"]?["stored"], true)
        // BEGIN EXCLUSIVE takes the write lock; in WAL mode it leaves readers alone.
        let holder = try LockHolder(store.database, ["BEGIN EXCLUSIVE"])

        let start = MonotonicClock.seconds()
        XCTAssertTrue(larder.send([
            #"{"jsonrpc":"2.0","id":1,"method":"cache.set","params":{"key":"a","value":1}}"#,
            #"{"jsonrpc":"2.0","id":2,"method":"cache.get","params":{"key":"k"}}"#,
            #"{"jsonrpc":"2.0","id":3,"method":"cache.set","params":{"key":"b","value":2}}"#,
            #"{"jsonrpc":"2.0","id":4,"method":"cache.setMany","params":{"entries":[{"key":"c","value":3}]}}"#,
            #"{"jsonrpc":"2.0","id":5,"method":"cache.get","params":{"key":"k"}}"#,
        ].joined(separator: "\n")))
        var answers: [Int: JSON] = [:]
        for _ in 1...5 {
            guard let m = larder.readMessage(timeout: 30), let id = m["id"]?.numberValue?.int else { break }
            answers[id] = m
        }
        let waited = Self.seconds(since: start)
        XCTAssertGreaterThanOrEqual(waited, 4.5, "the busy timeout is 5 s")
        XCTAssertLessThan(waited, 8, "a burst waits for the lock once, not once per write")
        for id in [1, 3, 4] {
            XCTAssertEqual(answers[id]?.errorCode, -31002, "\(answers[id].map(\.description) ?? "no answer")")
            XCTAssertEqual((answers[id]?["error"]?["data"]?["sqliteCode"]?.numberValue?.int ?? 0) & 0xFF, 5, "SQLITE_BUSY")
        }
        for id in [2, 5] {
            XCTAssertEqual(answers[id]?["result"]?["value"], "kept")
        }

        // The next burst waits again, and writes once the lock is released meanwhile.
        let release = DispatchWorkItem { holder.release() }
        DispatchQueue.global().asyncAfter(deadline: .now() + 1, execute: release)
        let after = MonotonicClock.seconds()
        XCTAssertEqual(larder.set("d", 4, id: 6)?["result"]?["stored"], true)
        XCTAssertGreaterThanOrEqual(Self.seconds(since: after), 0.9)
        XCTAssertEqual(larder.endInput(), 0)

        let again = try store.start()
        let entries = again.request("cache.getMany", params: ["keys": ["k", "a", "b", "c", "d"]])?["result"]?["entries"]
        XCTAssertEqual(entries?["k"]?["found"], true)
        XCTAssertEqual(entries?["d"]?["found"], true)
        for refused in ["a", "b", "c"] { XCTAssertEqual(entries?[refused]?["found"], false, refused) }
        XCTAssertEqual(again.endInput(), 0)
        XCTAssertEqual(StoreIntegrity.check(directory: store.path), ["ok"])
    }

    func testAStoreHeldInExclusiveLockingModeStopsTheServerAtStartAfterTheTimeout() throws {
        let maker = try store.start()
        XCTAssertEqual(maker.set("k", "kept")?["result"]?["stored"], true)
        XCTAssertEqual(maker.endInput(), 0)
        // Exclusive locking mode shuts out readers too, until the connection closes.
        let holder = try LockHolder(store.database, ["PRAGMA locking_mode = EXCLUSIVE", "BEGIN EXCLUSIVE"])
        defer { holder.release() }

        let start = MonotonicClock.seconds()
        let larder = try store.start()
        XCTAssertEqual(larder.waitForExit(timeout: 30), 2)
        XCTAssertLessThan(Self.seconds(since: start), 8, "opening waits the busy timeout once")
        let said = larder.stderrAtEnd()
        XCTAssertTrue(said.hasPrefix("larder: cannot open the store: the store is locked by another process"), said)
    }
}
