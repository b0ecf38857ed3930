import XCTest
@testable import LarderCore
@testable import LarderPostgreSQL
import LarderStorage

/// Bursts of statements in pipeline mode: one round trip, one transaction,
/// failures reported statement by statement.
final class PostgreSQLPipelineTests: PostgresTestCase {
    private let insert = PostgresStatement("pipeline_insert", "INSERT INTO t (k, v) VALUES ($1, $2)", parameterTypes: [.int8, .bytea])
    private let read = PostgresStatement("pipeline_read", "SELECT v FROM t WHERE k = $1", parameterTypes: [.int8])

    private func createTable(_ db: PostgresConnection) throws {
        try db.execute("CREATE TABLE t (k int8 PRIMARY KEY, v bytea)")
    }

    func testABurstOfAThousandInsertsTakesOneRoundTrip() throws {
        let direct = try connect()
        try createTable(direct)
        // 25 ms each way: a round trip takes at least 50 ms.
        let proxy = try LatencyProxy(to: direct, latency: .milliseconds(25))
        defer { proxy.stop() }
        let db = try connect(settings: proxy.settings)
        try db.prepare(insert)

        // One statement at a time pays the round trip each time…
        var start = ContinuousClock.now
        for _ in 0..<5 { try db.query("SELECT 1") }
        let oneByOne = seconds(since: start)
        XCTAssertGreaterThanOrEqual(oneByOne, 5 * 0.05, "the proxy does not delay")

        // …a pipeline pays it once for the whole burst (at 50 ms a statement, 1,000 would take 50 s).
        var burst = PostgresPipeline()
        for k in 0..<1000 { burst.append(insert, [.int8(Int64(k)), .bytea(Array("value \(k)".utf8))]) }
        start = ContinuousClock.now
        let result = try db.run(burst)
        let pipelined = seconds(since: start)
        XCTAssertNil(result.failure)
        XCTAssertEqual(result.count, 1000)
        for outcome in result.outcomes {
            guard case .done(let inserted) = outcome, inserted.rowsAffected == 1 else { return XCTFail("\(outcome)") }
        }
        XCTAssertLessThan(pipelined, 2.0, "1,000 inserts took \(pipelined) s through a 50 ms round trip")
        XCTAssertEqual(try count("t", on: direct), 1000)
        print("1,000 pipelined inserts through a 50 ms round trip: \(Int(pipelined * 1000)) ms; 5 single queries: \(Int(oneByOne * 1000)) ms")
    }

    func testAFailingStatementSkipsTheRestAndCommitsNothing() throws {
        let db = try connect()
        try createTable(db)
        var burst = PostgresPipeline()
        for k: Int64 in [1, 2, 1, 3, 4] { burst.append(insert, [.int8(k), .bytea([UInt8(k)])]) }
        let result = try db.run(burst)

        guard case .done = result[0], case .done = result[1] else { return XCTFail("\(result.outcomes)") }
        guard case .failed(let error) = result[2] else { return XCTFail("\(result[2])") }
        XCTAssertEqual(sqlState(error), "23505")
        guard case .skipped = result[3], case .skipped = result[4] else { return XCTFail("\(result.outcomes)") }
        XCTAssertEqual(result.failure, error)
        XCTAssertEqual(try count("t", on: db), 0, "the burst is one transaction")

        // The session goes on: the next burst commits.
        var next = PostgresPipeline()
        next.append(insert, [.int8(1), .null])
        next.append(sql: "UPDATE t SET v = $1 WHERE k = $2", [.bytea([9]), .int8(1)])
        XCTAssertNil(try db.run(next).failure)
        XCTAssertEqual(try db.run(read, [.int8(1)]).bytes(0, 0), [9])
    }

    func testAStatementThatCannotBePreparedIsTheOneThatFails() throws {
        let db = try connect()
        try createTable(db)
        let broken = PostgresStatement("pipeline_broken", "INSERT INTO no_such_table VALUES ($1)")
        var burst = PostgresPipeline()
        burst.append(insert, [.int8(1), .null])
        burst.append(broken, [.int8(2)])
        burst.append(insert, [.int8(3), .null])
        let result = try db.run(burst)
        guard case .skipped = result[0], case .failed(let error) = result[1], case .skipped = result[2] else {
            return XCTFail("\(result.outcomes)")
        }
        XCTAssertEqual(sqlState(error), "42P01")
        XCTAssertEqual(try count("t", on: db), 0)
        // Statements are prepared outside transactions: the one prepared
        // before the failure stays, and the next burst does not prepare it again.
        XCTAssertEqual(db.prepared, [insert.name])

        var next = PostgresPipeline()
        next.append(insert, [.int8(1), .null])
        XCTAssertNil(try db.run(next).failure)
        XCTAssertEqual(db.prepared, [insert.name])
    }

    func testLargeValuesGoAndComeBackInOneBurst() throws {
        let db = try connect()
        try createTable(db)
        // More than the sockets' buffers in each direction: the server
        // answers the selects while the rest of the burst is still being sent.
        let values = (0..<4).map { _ in randomBytes(3 << 20) }
        var burst = PostgresPipeline()
        for (k, value) in values.enumerated() {
            burst.append(insert, [.int8(Int64(k)), .bytea(value)])
            burst.append(read, [.int8(Int64(k))])
        }
        let result = try db.run(burst)
        XCTAssertNil(result.failure)
        for (k, value) in values.enumerated() {
            guard case .done(let rows) = result[2 * k + 1] else { return XCTFail("\(result[2 * k + 1])") }
            XCTAssertTrue(try rows.bytes(0, 0) == value, "value \(k) came back different")
        }
    }

    func testInsideATransactionTheBurstJoinsIt() throws {
        let db = try connect()
        try createTable(db)
        _ = assertThrowsStoreError("a transaction that fails after its burst") { () throws(StoreError) in
            try db.transaction { () throws(StoreError) in
                var burst = PostgresPipeline()
                burst.append(insert, [.int8(1), .null])
                burst.append(insert, [.int8(2), .null])
                XCTAssertNil(try db.run(burst).failure)
                XCTAssertEqual(try db.query("SELECT count(*) FROM t").int64(0, 0), 2, "the burst's rows are in the transaction")
                throw StoreError.internalFailure("undo")
            }
        }
        XCTAssertEqual(try count("t", on: db), 0, "the burst did not commit the enclosing transaction")
    }

    func testBurstsInTextFormatAndWithOneOffStatements() throws {
        let db = try connect()
        try createTable(db)
        var burst = PostgresPipeline(format: .text)
        burst.append(insert, [.int8(-5), .bytea([0, 1, 2, 0])])
        burst.append(sql: "SELECT k, v FROM t WHERE k = $1", [.int8(-5)])
        let result = try db.run(burst)
        guard case .done(let rows) = result[1] else { return XCTFail("\(result[1])") }
        XCTAssertEqual(rows.format(of: 1), .text)
        XCTAssertEqual(try rows.int64(0, 0), -5)
        XCTAssertEqual(try rows.bytes(0, 1), [0, 1, 2, 0])
        XCTAssertEqual(try db.run(PostgresPipeline()).count, 0, "an empty burst sends nothing")
    }
}
