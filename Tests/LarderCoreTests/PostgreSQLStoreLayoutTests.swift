import Foundation
import XCTest
@testable import LarderCore
@testable import LarderPostgreSQL
import LarderStorage

/// Larder's tables on PostgreSQL: made once, by whichever sidecar comes
/// first, however many start at once; recorded step by step; a store of
/// the layout before steps were recorded is taken as it is; a newer layout
/// is refused.
final class PostgreSQLStoreLayoutTests: PostgresTestCase {
    private func tables(_ c: PostgresConnection, in schema: String) throws -> [String] {
        let r = try c.query("SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name", [.text(schema)])
        return try (0..<r.rowCount).map { try XCTUnwrap(r.string($0, 0)) }
    }

    private func steps(_ c: PostgresConnection, in schema: String) throws -> [String] {
        let r = try c.query("SELECT name FROM \(SQLDialect.quoted(schema)).layout_steps ORDER BY name")
        return try (0..<r.rowCount).map { try XCTUnwrap(r.string($0, 0)) }
    }

    /// Every column of every table, with its type and collation: what a layout is.
    private func columns(_ c: PostgresConnection, in schema: String) throws -> [String] {
        let r = try c.query("""
            SELECT table_name || '.' || column_name || ' ' || data_type || ' ' || COALESCE(collation_name, '') || ' ' || is_nullable
            FROM information_schema.columns WHERE table_schema = $1 ORDER BY table_name, column_name
            """, [.text(schema)])
        return try (0..<r.rowCount).map { try XCTUnwrap(r.string($0, 0)) }
    }

    private let allTables = ["caches", "changes", "commits", "entity_models", "entries", "fetch_leases", "layout_steps", "locks", "meta", "schemas", "store_meta"]

    func testTheFirstSidecarMakesTheTablesAndTheNextFindsThemDone() throws {
        let target = schema + "_store"
        let c = try connect()
        XCTAssertTrue(try StoreLayout.bringUpToDate(PostgresLayout(connection: c, schema: target)))
        XCTAssertEqual(try tables(c, in: target), allTables)
        XCTAssertEqual(try steps(c, in: target), StoreLayout.steps.map(\.name).sorted())
        XCTAssertFalse(try StoreLayout.bringUpToDate(PostgresLayout(connection: c, schema: target)), "nothing left to do")
        XCTAssertEqual(try PostgresLayout.counter(c, schema: target), StoreLayout.stepsRecorded(.postgreSQL))
        _ = try c.execute("DROP SCHEMA \(SQLDialect.quoted(target)) CASCADE")
    }

    func testSidecarsStartingAtOnceAllSucceedAndOneMakesTheTables() throws {
        let target = schema + "_race"
        let starts = Starts(try (0..<6).map { _ in try connect() }, schema: target)
        DispatchQueue.concurrentPerform(iterations: starts.connections.count) { starts.run($0) }
        let outcomes = Array(starts.outcomes)
        XCTAssertEqual(outcomes.filter { $0 == .failed }.count, 0, "every sidecar started")
        XCTAssertEqual(outcomes.filter { $0 == .made }.count, 1, "exactly one made the tables")
        XCTAssertEqual(try tables(starts.connections[0], in: target), allTables)
        XCTAssertEqual(try steps(starts.connections[0], in: target).count, StoreLayout.steps.count, "each step recorded once")
        _ = try starts.connections[0].execute("DROP SCHEMA \(SQLDialect.quoted(target)) CASCADE")
    }

    /// A store written before steps were recorded (layout counter 4, from
    /// the fixture) gets every step recorded, and only the steps after
    /// counter 4 run (the entries' revisions): its columns are those of a new
    /// store's, and its data is untouched.
    func testAStoreOfLayout4IsRecordedAsHavingItsStepsAndTakesOnlyTheLaterOnes() throws {
        let target = schema + "_layout4"
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/stores/postgresql-layout-4.sql")
        let dump = try String(contentsOf: fixture, encoding: .utf8)
        let c = try connect()
        _ = try c.execute(dump.replacingOccurrences(of: "larder_fixture", with: target))
        _ = try c.execute("SET search_path TO \(schema)")
        XCTAssertEqual(try PostgresLayout.counter(c, schema: target), 4)
        let before = try columns(c, in: target)
        let entries = try c.query("SELECT count(*) FROM \(SQLDialect.quoted(target)).entries").int64(0, 0)

        XCTAssertTrue(try StoreLayout.bringUpToDate(PostgresLayout(connection: c, schema: target)))
        XCTAssertEqual(try steps(c, in: target), StoreLayout.steps.map(\.name).sorted())
        XCTAssertEqual(try PostgresLayout.counter(c, schema: target), StoreLayout.stepsRecorded(.postgreSQL))
        // Only the steps that no counter had (recorded by name only) ran: leases, revisions and fetch leases.
        XCTAssertEqual(try columns(c, in: target).filter { !$0.hasPrefix("layout_steps.") && !$0.hasPrefix("entries.revision ") && !$0.hasPrefix("locks.")
            && !$0.hasPrefix("fetch_leases.") }, before,
                       "no step the counter had ran")
        XCTAssertEqual(try c.query("SELECT count(*) FROM \(SQLDialect.quoted(target)).entries WHERE revision <> id").int64(0, 0), 0,
                       "an entry written before revisions has its row's number")
        XCTAssertEqual(try c.query("SELECT count(*) FROM \(SQLDialect.quoted(target)).entries").int64(0, 0), entries)

        // And it is laid out as a new store is, entity tables apart.
        let fresh = schema + "_fresh"
        try StoreLayout.bringUpToDate(PostgresLayout(connection: c, schema: fresh))
        XCTAssertEqual(try columns(c, in: target).filter { !$0.hasPrefix("entity.") }, try columns(c, in: fresh))
        for s in [target, fresh] { _ = try c.execute("DROP SCHEMA \(SQLDialect.quoted(s)) CASCADE") }
    }

    func testALayoutFromANewerLarderIsRefusedAndLeftAlone() throws {
        let target = schema + "_newer"
        let q = SQLDialect.quoted(target)
        let c = try connect()
        try StoreLayout.bringUpToDate(PostgresLayout(connection: c, schema: target))
        let newer = StoreLayout.stepsRecorded(.postgreSQL) + 1
        _ = try c.execute("UPDATE \(q).meta SET value = '\(newer)' WHERE name = 'schemaVersion'")
        assertRefusedAsNewer(c, target, saying: "layout \(newer)")
        XCTAssertEqual(try PostgresLayout.counter(c, schema: target), newer, "nothing was changed")

        // A step this Larder does not know, under the counter it knows.
        _ = try c.execute("UPDATE \(q).meta SET value = '\(newer - 1)' WHERE name = 'schemaVersion'")
        _ = try c.execute("INSERT INTO \(q).layout_steps VALUES ('versions')")
        assertRefusedAsNewer(c, target, saying: "'versions'")
        XCTAssertEqual(try steps(c, in: target).count, StoreLayout.steps.count + 1, "nothing was changed")
        _ = try c.execute("DROP SCHEMA \(q) CASCADE")
    }

    private func assertRefusedAsNewer(_ c: PostgresConnection, _ target: String, saying what: String, line: UInt = #line) {
        let error = assertThrowsStoreError("a newer layout", line: line) { () throws(StoreError) in
            try StoreLayout.bringUpToDate(PostgresLayout(connection: c, schema: target))
        }
        guard case .unavailable(_, let reason) = error else {
            return XCTFail("expected unavailable, got \(String(describing: error))", line: line)
        }
        XCTAssertTrue(reason.contains("newer Larder") && reason.contains(what), reason, line: line)
    }

    func testASchemaNameIsAlwaysOneIdentifier() throws {
        let target = schema + "_odd\"; DROP TABLE x; --"
        let c = try connect()
        try StoreLayout.bringUpToDate(PostgresLayout(connection: c, schema: target))
        XCTAssertEqual(try tables(c, in: target), allTables)
        _ = try c.execute("DROP SCHEMA \(SQLDialect.quoted(target)) CASCADE")
    }
}

/// Sidecars starting at once, each on a thread of its own with its own
/// connection; each writes only its own outcome.
private final class Starts: @unchecked Sendable {
    enum Outcome { case foundDone, made, failed }
    let connections: [PostgresConnection]
    let schema: String
    let outcomes: UnsafeMutableBufferPointer<Outcome>

    init(_ connections: [PostgresConnection], schema: String) {
        self.connections = connections
        self.schema = schema
        outcomes = .allocate(capacity: connections.count)
        outcomes.initialize(repeating: .failed)
    }

    deinit { outcomes.deallocate() }

    func run(_ i: Int) {
        outcomes[i] = (try? StoreLayout.bringUpToDate(PostgresLayout(connection: connections[i], schema: schema))).map { $0 ? .made : .foundDone } ?? .failed
    }
}
