import Foundation
import LarderTestSupport
import XCTest
@testable import LarderCore
@testable import LarderPostgreSQL
import LarderStorage

/// The server going away: crashed (`pg_ctl stop -m immediate`) while a
/// connection is idle or mid-burst, a session killed by an administrator,
/// and the way back once it returns. The crashes need the cluster
/// `.ci/with-postgres` makes (LARDER_TEST_PG_CTL).
final class PostgreSQLFaultTests: PostgresTestCase {
    private let insert = PostgresStatement("fault_insert", "INSERT INTO t (k) VALUES ($1)", parameterTypes: [.int8])

    /// Crashes the server; restarts it when the test ends, however it ends.
    private func crashServer() throws {
        try PostgresTestServer.control("stop", "-m", "immediate")
        addTeardownBlock {
            if (try? PostgresTestServer.control("status")) == nil { try PostgresTestServer.control("start") }
        }
    }

    func testACrashedServerIsUnavailableThenServedAgainWithStatementsPrepared() throws {
        let db = try connect(backoff: PostgresBackoff(first: .milliseconds(200), limit: .seconds(1), jitter: 0))
        try db.execute("CREATE TABLE t (k int8 PRIMARY KEY)")
        try db.run(insert, [.int8(1)])
        try db.listen("larder_fault")

        try crashServer()
        let lost = assertThrowsStoreError("a statement on the crashed server's session") { () throws(StoreError) in
            try db.run(insert, [.int8(2)])
        }
        assertUnavailable(lost)
        XCTAssertFalse(db.isConnected)

        // While the server is away, every call fails at once: the first tries
        // to connect, the next ones wait for the backoff instead.
        let start = ContinuousClock.now
        assertUnavailable(assertThrowsStoreError("reconnecting to a stopped server") { () throws(StoreError) in
            try db.run(insert, [.int8(2)])
        })
        let waiting = assertThrowsStoreError("a call within the backoff") { () throws(StoreError) in try db.run(insert, [.int8(2)]) }
        assertUnavailable(waiting)
        guard case .storageUnavailable(let reason, _) = waiting else { return }
        XCTAssertTrue(reason.contains("next attempt in"), reason)
        XCTAssertLessThan(seconds(since: start), 1, "calls while the server is away must not wait for it")
        XCTAssertEqual(db.sessions, 1)

        try PostgresTestServer.control("start")
        try db.reconnect(within: .seconds(20))
        XCTAssertEqual(db.sessions, 2)
        // The new session prepared the statement and listens again before anything was run on it.
        let watcher = try connect()
        XCTAssertEqual(try db.query("SELECT name FROM pg_prepared_statements").string(0, 0), insert.name)
        XCTAssertEqual(try db.query("SELECT pg_listening_channels()").string(0, 0), "larder_fault")
        try db.run(insert, [.int8(2)])
        try watcher.notify("larder_fault", payload: "back")
        XCTAssertEqual(try db.waitForNotifications(timeout: .seconds(5)).map(\.payload), ["back"])
        XCTAssertEqual(try count("t", on: watcher), 2)
    }

    func testCallsReconnectByThemselvesOnceTheServerIsBack() throws {
        let db = try connect(backoff: PostgresBackoff(first: .milliseconds(50), limit: .milliseconds(400)))
        try db.execute("CREATE TABLE t (k int8 PRIMARY KEY)")
        try db.prepare(insert)
        try crashServer()
        try PostgresTestServer.control("start")
        // The session died with the server; the first call finds out, the next ones reconnect.
        assertUnavailable(assertThrowsStoreError("the first call after the crash") { () throws(StoreError) in
            try db.run(insert, [.int8(1)])
        })
        XCTAssertTrue(try waitFor(seconds: 20) { () throws(StoreError) in
            do throws(StoreError) {
                try db.run(insert, [.int8(1)])
                return true
            } catch {
                guard error.isRetryable else { throw error }
                return false
            }
        })
        XCTAssertEqual(db.sessions, 2)
        XCTAssertEqual(try count("t", on: db), 1)
    }

    /// A server behind a network that drops packets (`BlackholeProxy`): the
    /// call that meets the silence waits out the timeout and loses the
    /// session; the calls after it wait for no server, and once the network
    /// is back a call is served again, on a new session.
    func testASilentServerHoldsOneCallForTheTimeoutAndTheNextOnesNotAtAll() throws {
        guard let (proxy, proxied) = try BlackholeProxy.inFront(of: url) else {
            throw XCTSkip("the test server is not named by an IPv4 address and port")
        }
        defer { proxy.stop() }
        let db = try connect(proxied, timeout: .seconds(1))
        try db.execute("CREATE TABLE t (k int8 PRIMARY KEY)")
        try db.run(insert, [.int8(1)])

        proxy.cut(true)
        var start = ContinuousClock.now
        let lost = assertThrowsStoreError("a call the server does not answer") { () throws(StoreError) in
            try db.run(insert, [.int8(2)])
        }
        assertUnavailable(lost)
        if case .storageUnavailable(let reason, _) = lost { XCTAssertTrue(reason.contains("did not answer within 1 s"), reason) }
        XCTAssertGreaterThanOrEqual(seconds(since: start), 1, "the call waited for the server until its timeout")
        XCTAssertLessThan(seconds(since: start), 3, "and not much longer")
        XCTAssertFalse(db.isConnected)

        start = ContinuousClock.now
        for _ in 0..<10 {
            assertUnavailable(assertThrowsStoreError("a call while the network is cut") { () throws(StoreError) in
                try db.run(insert, [.int8(2)])
            })
        }
        XCTAssertLessThan(seconds(since: start), 2, "each call waits at most 100 ms for a connection attempt")

        proxy.cut(false)
        XCTAssertTrue(try waitFor(seconds: 5) { () throws(StoreError) in
            do throws(StoreError) {
                try db.run(insert, [.int8(3)])
                return true
            } catch {
                guard error.isRetryable else { throw error }
                return false
            }
        })
        XCTAssertEqual(db.sessions, 2)
        XCTAssertEqual(try count("t", on: db), 2, "the rows of the calls answered, not the one lost with the network")
    }

    func testAServerCrashedMidBurstCommitsNothingOfIt() throws {
        let watcher = try connect()
        try watcher.execute("CREATE TABLE t (k int8 PRIMARY KEY)")
        let burst = BurstOnAnotherThread()
        let (url, schema) = (url, schema)
        Thread.detachNewThread { burst.run(url: url, schema: schema) }

        // Crash the server while the burst's second statement is running.
        XCTAssertTrue(try waitFor(seconds: 10) { () throws(StoreError) in
            try watcher.query("SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep%' AND state = 'active'")
                .int64(0, 0) == 1
        }, "the burst never reached its pg_sleep")
        try crashServer()

        let error = try XCTUnwrap(burst.outcome.wait(timeout: 20), "the burst did not return")
        assertUnavailable(error)
        try PostgresTestServer.control("start")
        let after = try connect()
        XCTAssertEqual(try count("t", on: after), 0, "no write of an unanswered burst is committed")
    }

    func testASessionKilledInATransactionRunsNothingMoreOfIt() throws {
        let db = try connect()
        let admin = try connect()
        try db.execute("CREATE TABLE t (k int8 PRIMARY KEY)")
        let error = assertThrowsStoreError("a transaction whose session was terminated") { () throws(StoreError) in
            try db.transaction { () throws(StoreError) in
                try db.run(insert, [.int8(1)])
                try admin.query("SELECT pg_terminate_backend($1::int4)", [.int8(Int64(db.backendPID))])
                let killed = assertThrowsStoreError("the statement after the kill") { () throws(StoreError) in
                    try db.run(insert, [.int8(2)])
                }
                assertUnavailable(killed)
                // A body that ignores the error must not go on, on a new session, outside any transaction.
                try db.run(insert, [.int8(3)])
            }
        }
        assertUnavailable(error)
        XCTAssertEqual(try count("t", on: admin), 0)
        // Once the transaction is over, the connection reconnects.
        try db.run(insert, [.int8(4)])
        XCTAssertEqual(db.sessions, 2)
        XCTAssertEqual(try count("t", on: admin), 1)
    }
}

/// A burst whose second statement sleeps for a minute, run on another
/// thread; `outcome` is its error (nil if it committed).
private final class BurstOnAnotherThread: @unchecked Sendable {
    let outcome = Handoff<StoreError?>()

    func run(url: String, schema: String) {
        do {
            let db = try PostgresConnection(url, settings: ["options": "-c search_path=\(schema)"])
            var burst = PostgresPipeline()
            burst.append(sql: "INSERT INTO t VALUES ($1)", [.int8(1)])
            burst.append(sql: "SELECT pg_sleep(60)")
            burst.append(sql: "INSERT INTO t VALUES ($1)", [.int8(2)])
            outcome.put(try db.run(burst).failure)
        } catch {
            outcome.put(error)
        }
    }
}
