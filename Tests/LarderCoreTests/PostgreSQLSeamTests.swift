import XCTest
@testable import LarderCore
@testable import LarderPostgreSQL
import LarderStorage
import LarderSQLite

/// The storage seam: the same statements, written once, give the same
/// answers on SQLite and on PostgreSQL through `SQLConnection`.
final class PostgreSQLSeamTests: PostgresTestCase {
    /// Runs a disk tier's kinds of statement and says what each answered.
    private func scenario(_ db: any SQLConnection) throws -> [String] {
        let d = db.dialect
        try db.execute("""
            CREATE TABLE entries (id \(d.rowKey), cache BIGINT NOT NULL, grp \(d.bytes) NOT NULL, key \(d.bytes) NOT NULL,
                value \(d.bytes) NOT NULL, size BIGINT NOT NULL, ttl BIGINT, UNIQUE (cache, grp, key))
            """)
        var log: [String] = []
        let insert = try db.statement("INSERT INTO entries (cache, grp, key, value, size, ttl) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (cache, grp, key) DO NOTHING")
        let keys: [[UInt8]] = [Array("b".utf8), Array("a".utf8), Array("é".utf8), Array("B".utf8), Array("ab".utf8), [0, 1], []]
        for (n, key) in keys.enumerated() {
            let value: [UInt8] = n == 3 ? [0, 0, 255, 0] : Array("value \(n)".utf8)
            insert.bind(1, 7).bind(2, blob: []).bind(3, blob: key).bind(4, blob: value).bind(5, Int64(value.count))
            if n % 2 == 0 { insert.bindNull(6) } else { insert.bind(6, Int64(n * 1000)) }
            try insert.run()
            log.append("insert \(n): \(db.changes)")
        }
        try insert.bind(3, blob: Array("a".utf8)).run()
        log.append("insert taken key: \(db.changes)")

        let lookup = try db.statement("SELECT id, value, ttl FROM entries WHERE cache = ?1 AND grp = ?2 AND key = ?3")
        for key in [Array("B".utf8), Array("missing".utf8), [0, 1]] {
            lookup.bind(1, 7).bind(2, blob: []).bind(3, blob: key)
            if try lookup.step() {
                log.append("lookup \(key): value \(try lookup.blob(1)) ttl \(lookup.isNull(2) ? "null" : String(try lookup.int64(2)))")
            } else {
                log.append("lookup \(key): none")
            }
            lookup.reset()
        }

        let update = try db.statement("UPDATE entries SET value = ?, size = ? WHERE cache = ? AND key = ?")
        try update.bind(1, blob: Array("new".utf8)).bind(2, 3).bind(3, 7).bind(4, blob: Array("ab".utf8)).run()
        log.append("update: \(db.changes)")

        let ordered = try db.statement("SELECT key, size FROM entries WHERE cache = ? ORDER BY key LIMIT ?")
        ordered.bind(1, 7).bind(2, 100)
        var order: [String] = []
        while try ordered.step() { order.append("\(try ordered.blob(0)):\(try ordered.int64(1))") }
        ordered.reset()
        log.append("in byte order: \(order.joined(separator: " "))")

        // SUM of a bigint is a numeric in PostgreSQL: the cast makes it an integer on both engines.
        let totals = try db.statement("SELECT COUNT(*), CAST(COALESCE(SUM(size), 0) AS BIGINT) FROM entries WHERE cache = ?")
        totals.bind(1, 7)
        _ = try totals.step()
        log.append("totals: \(try totals.int64(0)) \(try totals.int64(1))")
        totals.reset()

        let text = try db.statement("SELECT CAST(? AS TEXT) || 'x'")
        text.bind(1, "naïve ?")
        _ = try text.step()
        log.append("text: \(try text.string(0))")
        text.reset()

        try db.statement("DELETE FROM entries WHERE cache = ? AND size > ?").bind(1, 7).bind(2, 6).run()
        log.append("delete: \(db.changes)")
        return log
    }

    func testTheSameStatementsAnswerAlikeOnSQLiteAndPostgreSQL() throws {
        let sqlite = try SQLiteDatabase(path: ":memory:")
        defer { sqlite.close() }
        let postgres = PostgresSQLConnection(try connect(), location: "the test server")
        let onSQLite = try scenario(sqlite)
        let onPostgreSQL = try scenario(postgres)
        XCTAssertEqual(onSQLite.count, 16)
        XCTAssertEqual(onPostgreSQL, onSQLite)
        XCTAssertTrue(onSQLite.contains("insert taken key: 0"))
        XCTAssertTrue(onSQLite.contains("lookup [66]: value [0, 0, 255, 0] ttl 3000"))
        XCTAssertTrue(onSQLite.contains("totals: 7 42"))
    }

    func testPlaceholdersAreNumberedAsSQLiteNumbersThem() {
        let numbered = PostgresSQLConnection.numberedPlaceholders(#"a = ? AND b = ?3 AND c = ? AND d = '?' AND "e?" = ?1"#)
        XCTAssertEqual(numbered.sql, #"a = $1 AND b = $3 AND c = $4 AND d = '?' AND "e?" = $1"#)
        XCTAssertEqual(numbered.used, [1, 3, 4], "2 is skipped")
    }

    /// Queued statements go with the next one that must answer, in order,
    /// in one round trip; each reader gets its answer before that one returns.
    func testQueuedStatementsRunInOrderWithTheNextThatAnswers() throws {
        let db = PostgresSQLConnection(try connect(), location: "the test server")
        try db.execute("CREATE TABLE t (n BIGINT PRIMARY KEY)")
        // Each statement is prepared on its first run, in round trips of its own.
        let insert = try db.statement("INSERT INTO t (n) VALUES (?) RETURNING n * 10")
        try insert.bind(1, 0).run()
        let count = try db.statement("SELECT count(*), max(n) FROM t")
        _ = try count.step()
        count.reset()
        try db.execute("DELETE FROM t")

        try db.begin()
        var answered: [Int64] = []
        let before = db.connection.roundTrips
        for n in 1...3 { try insert.bind(1, Int64(n)).runPipelined { (row) throws(StoreError) in answered.append(try row?.int64(0) ?? -1) } }
        try db.savepoint("batch")
        try insert.bind(1, 4).runPipelined(then: nil)
        db.rollback(toSavepoint: "batch")
        XCTAssertEqual(answered, [], "nothing is sent yet")
        XCTAssertTrue(try count.step())
        XCTAssertEqual(answered, [10, 20, 30])
        XCTAssertEqual(try count.int64(0), 3, "the row under the savepoint rolled back to is gone")
        XCTAssertEqual(db.connection.roundTrips - before, 1)
        count.reset()
        try insert.bind(1, 5).runPipelined { (row) throws(StoreError) in answered.append(try row?.int64(0) ?? -1) }
        try db.commit()
        XCTAssertEqual(answered, [10, 20, 30, 50])
        XCTAssertEqual(db.connection.roundTrips - before, 2)
        XCTAssertEqual(try db.integer("SELECT count(*) FROM t"), 4)
    }

    /// A column PostgreSQL answered in a type other than the one asked is an
    /// error, never a 0 taken for data; NULL reads as SQLite reads it.
    func testAColumnThatCannotBeReadAsAskedIsAnError() throws {
        let db = PostgresSQLConnection(try connect(), location: "the test server")
        let s = try db.statement("SELECT CAST('forty-two' AS text), CAST(NULL AS bigint)")
        XCTAssertTrue(try s.step())
        XCTAssertNotNil(assertThrowsStoreError("text read as an integer") { () throws(StoreError) in try s.int64(0) })
        XCTAssertEqual(try s.string(0), "forty-two")
        XCTAssertEqual(try s.int64(1), 0)
        XCTAssertNotNil(assertThrowsStoreError("an integer read as bytes, even NULL") { () throws(StoreError) in try s.blob(1) })
        s.reset()

        // Read by a queued statement's reader, it dooms the transaction.
        try db.execute("CREATE TABLE t (n BIGINT PRIMARY KEY)")
        try db.begin()
        try db.statement("INSERT INTO t (n) VALUES (?) RETURNING CAST(n AS text)").bind(1, 1)
            .runPipelined { (row) throws(StoreError) in _ = try row?.int64(0) }
        XCTAssertNotNil(assertThrowsStoreError("the reader's failure") { () throws(StoreError) in try db.settle() })
        XCTAssertNotNil(db.transactionFailure)
        XCTAssertNotNil(assertThrowsStoreError("a doomed transaction") { () throws(StoreError) in try db.commit() })
        db.rollback()
        XCTAssertEqual(try db.integer("SELECT count(*) FROM t"), 0)
    }

    /// A queued statement that fails dooms the transaction: the statement
    /// that sent it throws, no reader is answered, and nothing is committed.
    func testAQueuedStatementThatFailsDoomsTheTransaction() throws {
        let db = PostgresSQLConnection(try connect(), location: "the test server")
        try db.execute("CREATE TABLE t (n BIGINT PRIMARY KEY)")
        try db.begin()
        let insert = try db.statement("INSERT INTO t (n) VALUES (?) RETURNING n")
        var answered: [Int64] = []
        for n in [1, 2, 2, 3] { try insert.bind(1, Int64(n)).runPipelined { (row) throws(StoreError) in answered.append(try row?.int64(0) ?? -1) } }
        let count = try db.statement("SELECT count(*) FROM t")
        let error = assertThrowsStoreError("the duplicate key") { () throws(StoreError) in try count.step() }
        XCTAssertEqual(sqlState(error), "23505")
        XCTAssertEqual(answered, [])
        XCTAssertNotNil(db.transactionFailure)
        XCTAssertEqual(sqlState(assertThrowsStoreError("the commit") { () throws(StoreError) in try db.commit() }), "23505")
        XCTAssertEqual(try db.integer("SELECT count(*) FROM t"), 0)
    }

    /// Outside a transaction there is no queue: the statement runs at once, on either engine.
    func testOutsideATransactionAPipelinedStatementRunsAtOnce() throws {
        let sqlite = try SQLiteDatabase(path: ":memory:")
        defer { sqlite.close() }
        let postgres = PostgresSQLConnection(try connect(), location: "the test server")
        for db in [sqlite, postgres] as [any SQLConnection] {
            try db.execute("CREATE TABLE t (n BIGINT)")
            var answer: Int64?
            try db.statement("INSERT INTO t (n) VALUES (?) RETURNING n + 1").bind(1, 41).runPipelined { (row) throws(StoreError) in answer = try row?.int64(0) }
            XCTAssertEqual(answer, 42)
            try db.statement("INSERT INTO t (n) VALUES (?)").bind(1, 7).runPipelined(then: nil)
            XCTAssertEqual(try db.integer("SELECT count(*) FROM t"), 2)
        }
    }
}
