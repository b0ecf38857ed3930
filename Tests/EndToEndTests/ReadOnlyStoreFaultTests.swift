#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import LarderJSON
import XCTest

/// A store that cannot be written. A read-only directory cannot be opened at
/// all (-31000, or exit code 2 at start): SQLite cannot read a database in
/// WAL mode without making its `-shm` file beside it. A read-only database
/// file in a writable directory opens, serves reads, and refuses writes with
/// -31001 and SQLITE_READONLY. Either way nothing stored is harmed.
///
/// Root ignores file permissions, so as root the tests bind the directory or
/// the file onto itself read-only; other users get chmod 0555 / 0444.
final class ReadOnlyStoreFaultTests: XCTestCase {
    private var store: TemporaryStore!

    override func setUp() {
        store = temporaryStore("read-only")
    }

    /// A store holding `k`, closed.
    private func makeStore() throws {
        let maker = try store.start()
        XCTAssertEqual(maker.set("k", "kept")?["result"]?["stored"], true)
        XCTAssertEqual(maker.endInput(), 0)
    }

    /// Makes `path` read-only for the server until the returned function is called.
    private func makeReadOnly(_ path: String, mode: mode_t) throws -> () -> Void {
        guard geteuid() == 0 else {
            XCTAssertEqual(chmod(path, mode), 0)
            return { chmod(path, mode | 0o200) }
        }
        let mount = try Mount.readOnly(path)
        return { mount.unmount() }
    }

    func testAReadOnlyDirectoryIsRefusedAtOpeningWithItsReason() throws {
        try makeStore()
        let writable = try makeReadOnly(store.path, mode: 0o555)
        defer { writable() }

        let atStart = try store.start()
        XCTAssertEqual(atStart.waitForExit(), 2)
        let said = atStart.stderrAtEnd()
        XCTAssertTrue(said.contains("cannot open the store: store unavailable at \(store.path): not writable"), said)

        let larder = try startLarder()
        let refused = larder.request("initialize", params: ["store": ["path": .string(store.path)]])
        XCTAssertEqual(refused?.errorCode, -31000, "\(refused.map(\.description) ?? "no response")")
        XCTAssertEqual(refused?["error"]?["data"]?["path"], .string(store.path))
        // The server goes on with the store it had.
        XCTAssertEqual(larder.set("elsewhere", 1, id: 2)?["result"]?["stored"], true)
        assertCleanExit(larder)

        writable()
        let again = try store.start()
        XCTAssertEqual(again.get("k")?["result"]?["value"], "kept")
        XCTAssertEqual(again.endInput(), 0)
        XCTAssertEqual(StoreIntegrity.check(directory: store.path), ["ok"])
    }

    func testAReadOnlyDatabaseServesReadsAndRefusesWrites() throws {
        try makeStore()
        let writable = try makeReadOnly(store.database, mode: 0o444)
        defer { writable() }

        let larder = try store.start()
        XCTAssertEqual(larder.get("k")?["result"]?["value"], "kept")
        let refused = larder.set("new", 1, id: 2)
        XCTAssertEqual(refused?.errorCode, -31001, "\(refused.map(\.description) ?? "no response")")
        XCTAssertEqual(refused?["error"]?["data"]?["sqliteCode"], 8, "SQLITE_READONLY")
        XCTAssertEqual(refused?["error"]?["message"], "storage failure: attempt to write a readonly database")
        XCTAssertEqual(larder.get("k", id: 3)?["result"]?["value"], "kept")
        XCTAssertEqual(larder.get("new", id: 4)?["result"]?["found"], false)
        XCTAssertEqual(larder.endInput(), 0)

        writable()
        let again = try store.start()
        XCTAssertEqual(again.get("k")?["result"]?["value"], "kept")
        XCTAssertEqual(again.get("new", id: 2)?["result"]?["found"], false)
        XCTAssertEqual(again.set("new", 1, id: 3)?["result"]?["stored"], true)
        XCTAssertEqual(again.endInput(), 0)
        XCTAssertEqual(StoreIntegrity.check(directory: store.path), ["ok"])
    }
}
