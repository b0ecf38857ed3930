import Foundation
import XCTest
@testable import LarderCore
@testable import LarderPostgreSQL

/// Larder's tables on PostgreSQL: made once, by whichever sidecar comes
/// first, however many start at once; a newer layout is refused.
final class PostgreSQLStoreSchemaTests: PostgresTestCase {
    private func tables(_ c: PostgresConnection, in schema: String) throws -> [String] {
        let r = try c.query("SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name", [.text(schema)])
        return try (0..<r.rowCount).map { try XCTUnwrap(r.string($0, 0)) }
    }

    func testTheFirstSidecarMakesTheTablesAndTheNextFindsThemDone() throws {
        let target = schema + "_store"
        let c = try connect()
        XCTAssertTrue(try PostgresStoreSchema.migrate(c, schema: target))
        XCTAssertEqual(try tables(c, in: target), ["caches", "changes", "commits", "entity_models", "entries", "meta", "schemas", "store_meta"])
        XCTAssertFalse(try PostgresStoreSchema.migrate(c, schema: target), "nothing left to do")
        XCTAssertEqual(try PostgresStoreSchema.storedVersion(c, schema: PostgresStoreSchema.quoted(target)), PostgresStoreSchema.version)
        _ = try c.execute("DROP SCHEMA \(PostgresStoreSchema.quoted(target)) CASCADE")
    }

    func testSidecarsStartingAtOnceAllSucceedAndOneMakesTheTables() throws {
        let target = schema + "_race"
        let starts = Starts(try (0..<6).map { _ in try connect() }, schema: target)
        DispatchQueue.concurrentPerform(iterations: starts.connections.count) { starts.run($0) }
        let outcomes = Array(starts.outcomes)
        XCTAssertEqual(outcomes.filter { $0 == .failed }.count, 0, "every sidecar started")
        XCTAssertEqual(outcomes.filter { $0 == .made }.count, 1, "exactly one made the tables")
        XCTAssertEqual(try tables(starts.connections[0], in: target).count, 8)
        _ = try starts.connections[0].execute("DROP SCHEMA \(PostgresStoreSchema.quoted(target)) CASCADE")
    }

    func testALayoutFromANewerLarderIsRefusedAndLeftAlone() throws {
        let target = schema + "_newer"
        let c = try connect()
        try PostgresStoreSchema.migrate(c, schema: target)
        let q = PostgresStoreSchema.quoted(target)
        _ = try c.execute("UPDATE \(q).meta SET value = '\(PostgresStoreSchema.version + 1)' WHERE name = 'schemaVersion'")
        let error = assertThrowsStoreError("a newer layout") { () throws(StoreError) in try PostgresStoreSchema.migrate(c, schema: target) }
        guard case .unavailable(_, let reason) = error else { return XCTFail("expected unavailable, got \(String(describing: error))") }
        XCTAssertTrue(reason.contains("newer Larder"), reason)
        XCTAssertEqual(try PostgresStoreSchema.storedVersion(c, schema: q), PostgresStoreSchema.version + 1, "nothing was changed")
        _ = try c.execute("DROP SCHEMA \(q) CASCADE")
    }

    func testASchemaNameIsAlwaysOneIdentifier() throws {
        let target = schema + "_odd\"; DROP TABLE x; --"
        let c = try connect()
        try PostgresStoreSchema.migrate(c, schema: target)
        XCTAssertEqual(try tables(c, in: target).count, 8)
        _ = try c.execute("DROP SCHEMA \(PostgresStoreSchema.quoted(target)) CASCADE")
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
        outcomes[i] = (try? PostgresStoreSchema.migrate(connections[i], schema: schema)).map { $0 ? .made : .foundDone } ?? .failed
    }
}
