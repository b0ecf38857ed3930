#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import LarderJSON
import XCTest

/// A store whose database is deleted or replaced while larder serves it: no
/// write is acknowledged into a file the next start will not read, every
/// request is refused with -31004, the loss is logged once, the exit code is
/// 3, and the old write-ahead log is never replayed onto a replacement.
final class StoreLostFaultTests: XCTestCase {
    private var store: TemporaryStore!

    override func setUp() {
        store = temporaryStore("lost")
    }

    /// A store made and closed by another larder, holding `b`: a database that can replace ours.
    private func otherDatabase() throws -> TemporaryStore {
        let other = temporaryStore("lost-other")
        let maker = try other.start()
        XCTAssertEqual(maker.set("b", "from the other store")?["result"]?["stored"], true)
        XCTAssertEqual(maker.endInput(), 0)
        return other
    }

    private func assertLost(_ response: JSON?, reason: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(response?.errorCode, -31004, "\(response.map(\.description) ?? "no response")", file: file, line: line)
        XCTAssertEqual(response?["error"]?["data"]?["path"], .string(store.database), file: file, line: line)
        let message = response?["error"]?["message"]?.stringValue ?? ""
        XCTAssertTrue(message.contains(store.database) && message.contains(reason), message, file: file, line: line)
    }

    /// The loss is logged once, however many requests are refused.
    private func assertLoggedOnce(_ larder: LarderProcess, file: StaticString = #filePath, line: UInt = #line) {
        let lines = larder.stderrAtEnd(timeout: 2).split(separator: "\n").filter { $0.contains("store lost") }
        XCTAssertEqual(lines.count, 1, larder.stderrText, file: file, line: line)
    }

    func testWritesAfterTheDatabaseIsDeletedAreRefusedNotAcknowledged() throws {
        let larder = try store.start()
        XCTAssertEqual(larder.set("before", 1)?["result"]?["stored"], true)
        XCTAssertEqual(unlink(store.database), 0)
        // One burst: a plain set (answered from its bytes), a read held behind it, and a setMany.
        larder.send([
            #"{"jsonrpc":"2.0","id":2,"method":"cache.set","params":{"key":"after","value":2}}"#,
            #"{"jsonrpc":"2.0","id":3,"method":"cache.get","params":{"key":"before"}}"#,
            #"{"jsonrpc":"2.0","id":4,"method":"cache.setMany","params":{"entries":[{"key":"many","value":3}]}}"#,
        ].joined(separator: "\n"))
        for id in 2...4 {
            guard let response = larder.readMessage() else { return }
            XCTAssertEqual(response["id"], .int(id))
            assertLost(response, reason: "deleted")
        }
        // Refused from then on, writes and reads alike.
        assertLost(larder.get("before", id: 5), reason: "deleted")
        assertLost(larder.set("later", 4, id: 6), reason: "deleted")
        XCTAssertEqual(larder.endInput(), 3)
        assertLoggedOnce(larder)

        // The store was deleted: the next start makes a new, empty, sound one.
        let again = try store.start()
        for key in ["after", "many", "later"] {
            XCTAssertEqual(again.get(key)?["result"]?["found"], false, key)
        }
        XCTAssertEqual(again.endInput(), 0)
        XCTAssertEqual(StoreIntegrity.check(directory: store.path), ["ok"])
    }

    func testWritesAfterTheDatabaseIsReplacedAreRefusedAndTheReplacementKeepsItsOwnContent() throws {
        let other = try otherDatabase()
        let larder = try store.start()
        XCTAssertEqual(larder.set("a1", 1)?["result"]?["stored"], true)
        XCTAssertEqual(rename(other.database, store.database), 0)
        assertLost(larder.set("a2", 2, id: 2), reason: "replaced")
        assertLost(larder.get("b", id: 3), reason: "replaced")
        XCTAssertEqual(larder.endInput(), 3)
        assertLoggedOnce(larder)

        let again = try store.start()
        XCTAssertEqual(again.get("b")?["result"]?["value"], "from the other store")
        XCTAssertEqual(again.get("a1", id: 2)?["result"]?["found"], false, "the old log was replayed onto the replacement")
        XCTAssertEqual(again.get("a2", id: 3)?["result"]?["found"], false)
        XCTAssertEqual(again.endInput(), 0)
        XCTAssertEqual(StoreIntegrity.check(directory: store.path), ["ok"])
    }

    func testKilledAfterNoticingAReplacementLeavesNoLogToReplayOntoIt() throws {
        let other = try otherDatabase()
        let larder = try store.start()
        // Committed to the write-ahead log, not yet copied into the database.
        XCTAssertEqual(larder.set("a1", 1)?["result"]?["stored"], true)
        XCTAssertEqual(rename(other.database, store.database), 0)
        assertLost(larder.set("a2", 2, id: 2), reason: "replaced")
        larder.kill(SIGKILL)
        _ = larder.waitForExit()

        let again = try store.start()
        XCTAssertEqual(again.get("b")?["result"]?["value"], "from the other store")
        XCTAssertEqual(again.get("a1", id: 2)?["result"]?["found"], false, "the old log was replayed onto the replacement")
        XCTAssertEqual(again.endInput(), 0)
        XCTAssertEqual(StoreIntegrity.check(directory: store.path), ["ok"])
    }

    func testAReplacementNoticedOnlyAtTheEndIsStillReportedAndNotOverwritten() throws {
        let other = try otherDatabase()
        let larder = try store.start()
        XCTAssertEqual(larder.set("a1", 1)?["result"]?["stored"], true)
        XCTAssertEqual(rename(other.database, store.database), 0)
        XCTAssertEqual(larder.endInput(), 3)
        assertLoggedOnce(larder)

        let again = try store.start()
        XCTAssertEqual(again.get("b")?["result"]?["value"], "from the other store")
        XCTAssertEqual(again.get("a1", id: 2)?["result"]?["found"], false)
        XCTAssertEqual(again.endInput(), 0)
    }

    func testAStoreMadeAnewWhereTheDeletedOneWasKeepsItsOwnLog() throws {
        let first = try store.start()
        XCTAssertEqual(first.set("a1", 1)?["result"]?["stored"], true)
        try FileManager.default.removeItem(atPath: store.path)
        // Another larder makes a new store at the same path and writes to its log.
        let second = try store.start()
        XCTAssertEqual(second.set("n1", 1)?["result"]?["stored"], true)
        assertLost(first.set("a2", 2, id: 2), reason: "replaced")
        first.notify("exit")
        XCTAssertEqual(first.waitForExit(), 3)
        assertLoggedOnce(first)
        // Still only in the second store's log: the first must not have removed it.
        XCTAssertEqual(second.set("n2", 2, id: 2)?["result"]?["stored"], true)
        second.kill(SIGKILL)
        _ = second.waitForExit()

        let again = try store.start()
        XCTAssertEqual(again.get("n1")?["result"]?["found"], true)
        XCTAssertEqual(again.get("n2", id: 2)?["result"]?["found"], true)
        XCTAssertEqual(again.get("a1", id: 3)?["result"]?["found"], false)
        XCTAssertEqual(again.endInput(), 0)
        XCTAssertEqual(StoreIntegrity.check(directory: store.path), ["ok"])
    }
}
