import Foundation
import XCTest
@testable import LarderCore
@testable import LarderPostgreSQL
import LarderStorage

/// Transactions, savepoints and advisory locks, as other sessions see them.
final class PostgreSQLTransactionTests: PostgresTestCase {
    private let insert = PostgresStatement("tx_insert", "INSERT INTO t (k) VALUES ($1)", parameterTypes: [.int8])

    private func keys(on db: PostgresConnection) throws -> [Int64?] {
        let rows = try db.query("SELECT k FROM t ORDER BY k")
        return try (0..<rows.rowCount).map { row throws(StoreError) in try rows.int64(row, 0) }
    }

    func testACommittedTransactionIsSeenByOtherSessionsOnlyOnceCommitted() throws {
        let db = try connect()
        let other = try connect()
        try db.execute("CREATE TABLE t (k int8 PRIMARY KEY)")
        let answer = try db.transaction { () throws(StoreError) -> String in
            try db.run(insert, [.int8(1)])
            try db.run(insert, [.int8(2)])
            XCTAssertEqual(try keys(on: other), [], "another session sees nothing before the commit")
            return "done"
        }
        XCTAssertEqual(answer, "done")
        XCTAssertEqual(try keys(on: other), [1, 2])
    }

    func testABodyThatThrowsRollsEverythingBack() throws {
        let db = try connect()
        try db.execute("CREATE TABLE t (k int8 PRIMARY KEY)")
        let error = assertThrowsStoreError("a body that fails") { () throws(StoreError) in
            try db.transaction { () throws(StoreError) in
                try db.run(insert, [.int8(1)])
                throw StoreError.invalidArgument(field: "k", reason: "refused by the caller")
            }
        }
        XCTAssertEqual(error, .invalidArgument(field: "k", reason: "refused by the caller"))
        XCTAssertEqual(try keys(on: db), [])
        // The session is out of the transaction: the next write commits on its own.
        try db.run(insert, [.int8(3)])
        XCTAssertEqual(try keys(on: try connect()), [3])
    }

    func testASavepointUndoesOnlyWhatWasDoneUnderIt() throws {
        let db = try connect()
        try db.execute("CREATE TABLE t (k int8 PRIMARY KEY)")
        try db.transaction { () throws(StoreError) in
            try db.run(insert, [.int8(1)])
            let error = assertThrowsStoreError("a duplicate under a savepoint") { () throws(StoreError) in
                try db.savepoint { () throws(StoreError) in
                    try db.run(insert, [.int8(2)])
                    try db.run(insert, [.int8(1)])
                }
            }
            XCTAssertEqual(sqlState(error), "23505")
            // Nested savepoints: the inner one's work stays when it succeeds.
            try db.savepoint { () throws(StoreError) in
                try db.savepoint { () throws(StoreError) in try db.run(insert, [.int8(4)]) }
                try db.run(insert, [.int8(3)])
            }
        }
        XCTAssertEqual(try keys(on: try connect()), [1, 3, 4])
    }

    func testCommittingAfterACaughtErrorRollsBackAndSaysSo() throws {
        let db = try connect()
        try db.execute("CREATE TABLE t (k int8 PRIMARY KEY)")
        let error = assertThrowsStoreError("a commit after a failed statement") { () throws(StoreError) in
            try db.transaction { () throws(StoreError) in
                try db.run(insert, [.int8(1)])
                _ = try? db.run(insert, [.int8(1)])
            }
        }
        XCTAssertEqual(sqlState(error), PostgresSQLState.inFailedTransaction)
        XCTAssertEqual(try keys(on: db), [], "the write before the failure is not committed either")
    }

    func testTransactionsDoNotNestAndSavepointsNeedOne() throws {
        let db = try connect()
        let nested = assertThrowsStoreError("a transaction inside another") { () throws(StoreError) in
            try db.transaction { () throws(StoreError) in try db.transaction { () throws(StoreError) in } }
        }
        guard case .internalFailure = nested else { return XCTFail("got \(String(describing: nested))") }
        let savepoint = assertThrowsStoreError("a savepoint outside a transaction") { () throws(StoreError) in
            try db.savepoint { () throws(StoreError) in }
        }
        guard case .internalFailure = savepoint else { return XCTFail("got \(String(describing: savepoint))") }
        let lock = assertThrowsStoreError("an advisory lock outside a transaction") { () throws(StoreError) in
            try db.advisoryLock(1)
        }
        guard case .internalFailure = lock else { return XCTFail("got \(String(describing: lock))") }
    }

    func testAnAdvisoryLockSerialisesTwoConnections() throws {
        let first = try connect()
        let watcher = try connect()
        try first.execute("CREATE TABLE counter (n int8)")
        try first.execute("INSERT INTO counter VALUES (0)")
        let key: Int64 = 0x4C61_7264_6572

        let second = try connect()
        let waiter = LockWaiter()
        try first.transaction { () throws(StoreError) in
            try first.advisoryLock(key)
            // Another session cannot take it meanwhile…
            try second.transaction { () throws(StoreError) in XCTAssertFalse(try second.tryAdvisoryLock(key)) }
            // …and one that waits for it waits until this transaction ends.
            let settings = ["options": "-c search_path=\(schema)"]
            let url = url
            Thread.detachNewThread { waiter.run(url: url, settings: settings, key: key) }
            let pid = waiter.pid.wait(timeout: 10)
            XCTAssertNotNil(pid, "the waiting session did not start")
            XCTAssertTrue(try waitFor(seconds: 10) { () throws(StoreError) in
                try watcher.query("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND pid = $1",
                                  [.int8(Int64(pid ?? 0))]).int64(0, 0) == 1
            }, "the second session is not waiting for the lock")
            try first.execute("UPDATE counter SET n = n + 1")
        }
        // The waiter read the counter after taking the lock: after this commit.
        XCTAssertEqual(waiter.seen.wait(timeout: 10), .some(1))
        XCTAssertEqual(try first.query("SELECT n FROM counter").int64(0, 0), 2)
        XCTAssertTrue(try first.transaction { () throws(StoreError) in try first.tryAdvisoryLock(key) }, "both released the lock")
    }
}

/// A session on another thread that waits for an advisory lock, then
/// increments the counter and reports what it read.
private final class LockWaiter: @unchecked Sendable {
    let pid = Handoff<Int32>()
    let seen = Handoff<Int64?>()

    func run(url: String, settings: [String: String], key: Int64) {
        do {
            let db = try PostgresConnection(url, settings: settings)
            pid.put(db.backendPID)
            let value = try db.transaction { () throws(StoreError) -> Int64? in
                try db.advisoryLock(key)
                let n = try db.query("SELECT n FROM counter").int64(0, 0)
                try db.execute("UPDATE counter SET n = n + 1")
                return n
            }
            seen.put(value)
        } catch {
            pid.put(0)
            seen.put(nil)
        }
    }
}

/// One value passed from one thread to another.
final class Handoff<Value>: @unchecked Sendable {
    private let condition = NSCondition()
    private var value: Value?

    func put(_ newValue: Value) {
        condition.lock()
        if value == nil { value = newValue }
        condition.broadcast()
        condition.unlock()
    }

    /// The value, once put; nil if none came within `timeout` seconds.
    func wait(timeout: TimeInterval) -> Value? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while value == nil {
            if !condition.wait(until: deadline) { break }
        }
        return value
    }
}

/// Polls `condition` every 10 ms until it holds (true) or `seconds` pass (false).
func waitFor(seconds: Double, _ condition: () throws(StoreError) -> Bool) throws(StoreError) -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        PostgresConnection.sleep(until: ContinuousClock.now + .milliseconds(10))
    }
    return try condition()
}
