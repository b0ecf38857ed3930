#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import XCTest
@testable import LarderCore
@testable import LarderPostgreSQL
import LarderStorage

/// Values to the server and back: every type, in both formats, by prepared
/// statement, by one-off query and through the simple protocol.
final class PostgreSQLValueTests: PostgresTestCase {
    private let insert = PostgresStatement("values_insert", "INSERT INTO v (id, n, t, b) VALUES ($1, $2, $3, $4)",
                                           parameterTypes: [.int8, .int8, .text, .bytea])
    private let select = PostgresStatement("values_select", "SELECT n, t, b FROM v WHERE id = $1", parameterTypes: [.int8])

    private struct Row: Equatable {
        var n: Int64?
        var t: String?
        var b: [UInt8]?
    }

    /// NULLs, the extremes of int8, empty and non-ASCII text, bytes with
    /// zeros among them, every byte value, and a value of several megabytes.
    private func samples(large: Int) -> [Row] {
        var everyByte = (0...255).map(UInt8.init)
        everyByte += everyByte.reversed()
        return [
            Row(n: nil, t: nil, b: nil),
            Row(n: Int64.min, t: "", b: []),
            Row(n: Int64.max, t: "héllo ✓ 🎉 \u{1F468}\u{200D}\u{1F469}", b: [0]),
            Row(n: -1, t: "line\nbreak 'single' \"double\" \\back\\ $1 %s", b: [0, 0, 0, 1, 0]),
            Row(n: 0, t: String(repeating: "ünïcode ", count: 20_000), b: everyByte),
            Row(n: 42, t: "large", b: randomBytes(large)),
        ]
    }

    func testEveryTypeRoundTripsThroughPreparedStatementsInBinary() throws {
        try roundTrip(format: .binary, large: 8 << 20)
    }

    func testEveryTypeRoundTripsThroughPreparedStatementsInText() throws {
        try roundTrip(format: .text, large: 1 << 20)
    }

    private func roundTrip(format: PostgresFormat, large: Int) throws {
        let db = try connect()
        try db.execute("CREATE TABLE v (id int8 PRIMARY KEY, n int8, t text, b bytea)")
        let rows = samples(large: large)
        for (id, row) in rows.enumerated() {
            let result = try db.run(insert, [.int8(Int64(id)), row.n.map(PostgresValue.int8) ?? .null,
                                             row.t.map(PostgresValue.text) ?? .null, row.b.map(PostgresValue.bytea) ?? .null],
                                    format: format)
            XCTAssertEqual(result.rowsAffected, 1)
            XCTAssertEqual(result.commandTag, "INSERT 0 1")
        }
        for (id, row) in rows.enumerated() {
            let result = try db.run(select, [.int8(Int64(id))], format: format)
            XCTAssertEqual(result.rowCount, 1)
            XCTAssertEqual(result.format(of: 2), format)
            let read = Row(n: try result.int64(0, 0), t: try result.string(0, 1), b: try result.bytes(0, 2))
            XCTAssertTrue(read == row, "row \(id) in \(format) came back different")
        }
        // The server holds what was sent, not a re-encoding of it.
        let stored = try db.query("SELECT length(b), md5(b) FROM v WHERE id = 5", format: .text)
        XCTAssertEqual(try stored.int64(0, 0), Int64(large))
        XCTAssertEqual(try stored.string(0, 1), md5Hex(rows[5].b!, on: db))
    }

    func testOneOffQueriesAndTheSimpleProtocolReadTheSameValues() throws {
        let db = try connect()
        let bytes: [UInt8] = [0, 255, 0, 92, 120, 0]
        for format in [PostgresFormat.binary, .text] {
            let result = try db.query("SELECT $1::int8, $2::text, $3::bytea, NULL::bytea",
                                      [.int8(-7), .text("ünï"), .bytea(bytes)], format: format)
            XCTAssertEqual(try result.int64(0, 0), -7)
            XCTAssertEqual(try result.string(0, 1), "ünï")
            XCTAssertEqual(try result.bytes(0, 2), bytes)
            XCTAssertNil(try result.bytes(0, 3))
            XCTAssertTrue(result.isNull(0, 3))
        }
        // PQexec answers in text: bytea as hex, decoded here.
        let simple = try db.execute("SELECT '\\x00ff005c7800'::bytea, 12345678901::int8, 'x'::text; SELECT 2::int4 AS last")
        XCTAssertEqual(simple.columnName(0), "last", "the last statement's result is returned")
        XCTAssertEqual(try simple.int64(0, 0), 2)
        let hex = try db.execute("SELECT '\\x00ff005c7800'::bytea AS b, 12345678901::int8 AS n")
        XCTAssertEqual(hex.format(of: 0), .text)
        XCTAssertEqual(try hex.bytes(0, 0), bytes)
        XCTAssertEqual(try hex.int64(0, 1), 12_345_678_901)
    }

    func testSmallerIntegersAndOIDsReadAsInt64InBothFormats() throws {
        let db = try connect()
        for format in [PostgresFormat.binary, .text] {
            let result = try db.query("SELECT (-2)::int2, (-123456)::int4, 4294967295::oid", format: format)
            XCTAssertEqual(try result.int64(0, 0), -2)
            XCTAssertEqual(try result.int64(0, 1), -123_456)
            XCTAssertEqual(try result.int64(0, 2), 4_294_967_295)
        }
    }

    func testTextWithANulIsRefusedNotCut() throws {
        let db = try connect()
        let error = assertThrowsStoreError("text holding U+0000") { () throws(StoreError) in
            try db.query("SELECT $1::text", [.text("before\u{0}after")])
        }
        XCTAssertEqual(sqlState(error), "22021", "\(String(describing: error))")
    }

    func testAColumnIsReadOnlyAsWhatItHolds() throws {
        let db = try connect()
        let result = try db.query("SELECT 'text'::text, '\\x01'::bytea, 1::int8")
        for (what, read) in [("int8 from text", { () throws(StoreError) in _ = try result.int64(0, 0) }),
                             ("text from bytea", { () throws(StoreError) in _ = try result.string(0, 1) }),
                             ("bytes from int8", { () throws(StoreError) in _ = try result.bytes(0, 2) }),
                             ("a row that is not there", { () throws(StoreError) in _ = try result.int64(1, 2) })] {
            let error = assertThrowsStoreError(what) { () throws(StoreError) in try read() }
            guard case .internalFailure = error else { return XCTFail("\(what): expected internalFailure, got \(String(describing: error))") }
        }
        // Text's bytes are its UTF-8.
        XCTAssertEqual(try result.bytes(0, 0), Array("text".utf8))
    }

    func testRowsColumnsAndCommandTags() throws {
        let db = try connect()
        try db.execute("CREATE TABLE t (k int8, \"Odd Name\" text)")
        try db.execute("INSERT INTO t SELECT g, 'row ' || g FROM generate_series(1, 5) g")
        let rows = try db.query("SELECT k, \"Odd Name\" FROM t WHERE k > $1 ORDER BY k", [.int8(2)])
        XCTAssertEqual(rows.rowCount, 3)
        XCTAssertEqual(rows.columnCount, 2)
        XCTAssertEqual(rows.columnName(1), "Odd Name")
        XCTAssertEqual(rows.column(named: "Odd Name"), 1)
        XCTAssertEqual(rows.column(named: "k"), 0)
        XCTAssertNil(rows.column(named: "K"))
        XCTAssertEqual(rows.type(of: 0), .int8)
        XCTAssertEqual(try (0..<rows.rowCount).map { row throws(StoreError) in try rows.int64(row, 0) }, [3, 4, 5])
        XCTAssertEqual(try rows.string(2, 1), "row 5")
        XCTAssertEqual(rows.commandTag, "SELECT 3")

        let update = try db.query("UPDATE t SET \"Odd Name\" = NULL WHERE k <= $1", [.int8(4)])
        XCTAssertEqual(update.rowsAffected, 4)
        XCTAssertEqual(update.commandTag, "UPDATE 4")
        XCTAssertEqual(update.rowCount, 0)
    }

    /// The server's MD5 of `bytes`, to compare with what it stored.
    private func md5Hex(_ bytes: [UInt8], on db: PostgresConnection) -> String? {
        try? db.query("SELECT md5($1::bytea)", [.bytea(bytes)]).string(0, 0)
    }
}

/// `count` random bytes with runs of zeros among them.
func randomBytes(_ count: Int) -> [UInt8] {
    var generator = SystemRandomNumberGenerator()
    var bytes = [UInt8](repeating: 0, count: count)
    bytes.withUnsafeMutableBytes { raw in
        for offset in stride(from: 0, to: raw.count, by: 8) {
            withUnsafeBytes(of: generator.next() as UInt64) { word in
                raw[offset..<min(offset + 8, raw.count)].copyBytes(from: word.prefix(raw.count - offset))
            }
        }
    }
    for start in stride(from: 0, to: count, by: 4096) {
        for i in start..<min(start + 16, count) { bytes[i] = 0 }
    }
    return bytes
}
