import XCTest
import LarderJSON
@testable import LarderCore
@testable import LarderPostgreSQL
import LarderStorage

/// Writes whose answers can wait (`SQLStatement.runPipelined`): on
/// PostgreSQL a cache's sets are queued and sent with the next statement
/// that must answer, or the commit. What the store decides from them — its
/// totals against limits, the rows it reads, a touch of an entry just
/// written — must be what it would decide had each run at once. These run
/// on both engines (`LARDER_TEST_ENGINE`).
final class PipelinedWritesTests: StoreTestCase {
    /// Reopened, the memory tier knows no row: each set could be a new key or
    /// an old one, and only the statement's answer says which.
    func testOverwritingRowsTheMemoryTierDoesNotKnowKeepsTotalsExactAndEvictsNothing() throws {
        let store = try makeStore()
        let cache = try openCache(store) { $0.diskMaxCount = 3 }
        for k in ["a", "b", "c"] { try cache.put(k, "12345") }
        try store.commit()
        store.close()

        let reopened = try makeStore()
        let log = EventLog()
        log.attach(to: reopened)
        let again = try XCTUnwrap(reopened.cache(named: "c", create: false))
        XCTAssertEqual(again.diskTotals.count, 3)
        try again.put("a", "1")
        try again.put("b", "12")
        try again.put("c", "123")
        XCTAssertEqual(again.diskTotals.count, 3, "three rows replaced, none added")
        XCTAssertEqual(again.diskTotals.bytes, 6)
        XCTAssertEqual(log.evictions.count, 0, "nothing was over the limit of 3")
        try again.put("d", "1234")
        XCTAssertEqual(log.evictedKeys(tier: .disk), ["a"], "the fourth key evicts the least recently used")
        XCTAssertEqual(again.count, 3)
        XCTAssertEqual(again.bytes, 9)
        try reopened.commit()
        reopened.close()

        let third = try makeStore()
        let last = try XCTUnwrap(third.cache(named: "c", create: false))
        XCTAssertEqual(last.diskTotals.count, 3)
        XCTAssertEqual(last.diskTotals.bytes, 9)
        XCTAssertEqual(try last.allKeys(), ["b", "c", "d"])
    }

    func testReadsInTheSameTransactionSeeQueuedWrites() throws {
        let store = try makeStore()
        let cache = try openCache(store) { $0.memoryMaxCount = 1 }
        try cache.put("x", "1")
        try cache.put("x", "333")
        try cache.put("y", "22")
        // The memory tier holds only the last key: "x" is read from its row.
        XCTAssertEqual(try cache.lookup("x")?.tier, .disk)
        XCTAssertEqual(try cache.text("x"), "333")
        XCTAssertEqual(try cache.allKeys(), ["x", "y"])
        XCTAssertEqual(cache.diskTotals.count, 2)
        XCTAssertEqual(cache.diskTotals.bytes, 5)
        XCTAssertTrue(try cache.remove(EntryKey(group: "g", key: "y")))
        try store.commit()
        XCTAssertEqual(try cache.allKeys(), ["x"])
    }

    /// A touch needs the row's id, which a queued write learns only when it has run.
    func testTouchingAnEntryJustWrittenReachesItsRow() throws {
        let clock = Clock(fixedAt: 1_000_000)
        let store = try makeStore(clock: clock)
        let cache = try openCache(store) { $0.lifespan = 1000 }
        try cache.put("k", "v")
        _ = clock.advance(milliseconds: 600)
        XCTAssertEqual(try cache.touch(EntryKey(group: "g", key: "k")), .touched)
        try store.commit()
        store.close()

        _ = clock.advance(milliseconds: 600)
        let reopened = try makeStore(clock: clock)
        let again = try XCTUnwrap(reopened.cache(named: "c", create: false))
        XCTAssertEqual(try again.lookup("k")?.expiresAt, 1_001_600, "the touch reached the row on disk")
        XCTAssertEqual(try again.text("k"), "v")
    }

    /// A batch under a savepoint that fails leaves nothing, its queued rows included.
    func testAFailedBatchTakesBackItsQueuedRows() throws {
        let store = try makeStore()
        let cache = try openCache(store) { $0.diskMaxBytes = 10 }
        try cache.put("kept", "1")
        let writes = [Cache.Write(key: EntryKey(group: "g", key: "a"), kind: .data, bytes: bytes("12"), ttl: nil),
                      Cache.Write(key: EntryKey(group: "g", key: "b"), kind: .data, bytes: bytes("12345678901"), ttl: nil)]
        assertInvalidArgument(field: "value") { try cache.set(writes) }
        try store.commit()
        XCTAssertEqual(try cache.allKeys(), ["kept"])
        XCTAssertEqual(cache.diskTotals.count, 1)
    }
}

/// Round trips to PostgreSQL: a burst of sets is sent with its commit.
final class PostgreSQLPipelinedWritesTests: PostgresTestCase {
    func testABurstOfSetsCostsTheBeginAndOneRoundTripWithTheCommit() throws {
        let store = try Store(PostgresStore.open(url: url, schema: schema))
        defer { store.close() }
        let cache = try store.open("c", change: { var c = CacheConfigChange(); c.diskMaxCount = 10_000; return c }()).cache
        try cache.set(Cache.Write(key: EntryKey(group: "g", key: "first"), kind: .data, bytes: bytes("v"), ttl: nil))
        try store.commit()
        let connection = try XCTUnwrap(store.database as? PostgresSQLConnection).connection

        let before = connection.roundTrips
        for n in 0..<200 {
            try cache.set(Cache.Write(key: EntryKey(group: "g", key: "k\(n)"), kind: .data, bytes: Array(repeating: 120, count: n % 7), ttl: nil))
        }
        try cache.set(Cache.Write(key: EntryKey(group: "g", key: "k3"), kind: .data, bytes: bytes("overwritten"), ttl: nil))
        try store.commit()
        XCTAssertEqual(connection.roundTrips - before, 2, "BEGIN with the writer lock and the commits count, then every set with COMMIT")
        XCTAssertEqual(cache.diskTotals.count, 201)
        XCTAssertEqual(cache.diskTotals.bytes, 1 + (0..<200).reduce(0) { $0 + $1 % 7 } - 3 + 11)
        let admin = try connect()
        XCTAssertEqual(try admin.query("SELECT count(*) FROM entries").int64(0, 0), 201)
    }

    func testAnEntityBatchCostsTheBeginAndOneRoundTripAsItEnds() throws {
        let store = try Store(PostgresStore.open(url: url, schema: schema))
        defer { store.close() }
        try store.define(bandsModel())
        func bands(_ range: Range<Int>) -> [JSON] {
            range.map { n in JSON.object(["name": .string("Band \(n)"), "formed": .int(1900 + n)]) }
        }
        XCTAssertEqual(try store.upsert(bands(0..<10), entity: "Band").inserted, 10)
        try store.commit()
        let connection = try XCTUnwrap(store.database as? PostgresSQLConnection).connection

        let before = connection.roundTrips
        let result = try store.upsert(bands(5..<200), entity: "Band")
        XCTAssertEqual(connection.roundTrips - before, 2, "BEGIN with the writer lock and the look, then every record as the apply ends")
        XCTAssertEqual(result.inserted, 190)
        XCTAssertEqual(result.updated, 5)
        try store.commit()
        XCTAssertEqual(try store.count("Band"), 200)
    }
}
