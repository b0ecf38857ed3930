import LarderCore
import LarderPostgreSQL
import LarderSystem
import LarderStorage

/// Larder's statements on a PostgreSQL server, sent straight through libpq
/// in pipeline mode, in a fresh schema of Larder's tables
/// (`PostgresLayout`): what a store on PostgreSQL could do at best. A
/// transaction of statements is one round trip (BEGIN, the statements and
/// COMMIT sent together: `PostgresConnection.run`), and lookups go
/// `perRoundTrip` at a time, as many as larder has requests in flight.
///
/// Statements are prepared once and declared with the types larder's
/// `PostgresSQLStatement` gives them (integers int8, groups, keys and values
/// bytea), and sent and read in binary, as larder's are. What each
/// transaction of larder's adds to its statements (the writers' advisory
/// lock, the look at and the count in `commits`: three statements, however
/// many writes) is not in the floor, as the SQLite floor leaves out Larder's
/// own bookkeeping.
final class PostgresFloor: StorageFloor {
    /// The statement Larder runs on PostgreSQL to store an entry under a new
    /// key (`DiskTier.writePipelined`): the set floor runs this one, so that when
    /// larder's write statement changes, the floor changes with it here.
    /// Its parameters are `CacheSQL.insert`'s columns, in that order.
    static func setStatement() -> String { CacheSQL.Hot.write.sql(for: .postgreSQL) }

    private static let entryTypes: [PostgresType] = [.int8, .bytea, .bytea, .int8, .bytea, .int8, .int8, .int8, .int8, .int8, .int8, .int8]
    private static let insert = statement("larder_bench_set", setStatement(), entryTypes)
    private static let lookup = statement("larder_bench_lookup", CacheSQL.Hot.lookup.sql(for: .postgreSQL), [.int8, .bytea, .bytea])
    private static let update = statement("larder_bench_update", CacheSQL.Hot.update.sql(for: .postgreSQL),
                                          [.int8, .bytea, .int8, .int8, .int8, .int8, .int8, .int8, .int8, .int8, .int8, .bytea, .bytea])

    /// Larder's SQL, written with `?`, numbered as larder's connection numbers it.
    private static func statement(_ name: String, _ sql: String, _ types: [PostgresType]) -> PostgresStatement {
        PostgresStatement(name, PostgresSQLConnection.numberedPlaceholders(sql).sql, parameterTypes: types)
    }

    static func title(_ server: PostgresServer, perRoundTrip: Int) -> String {
        "storage floor: \(server.description) through libpq, Larder's tables and statements, pipelined: "
            + "a round trip per transaction, or per \(Format.count(perRoundTrip)) lookups"
    }

    let schema: String
    let perRoundTrip: Int
    private let server: PostgresServer
    private let connection: PostgresConnection
    private var used: Int64 = 0
    private let cacheID: Int64 = 1
    /// Keeps the reads of value bytes from being optimised away.
    private(set) var checksum = 0

    /// Opens `schema`, making Larder's tables there unless they are made.
    init(server: PostgresServer, schema: String, perRoundTrip: Int) {
        self.server = server
        self.schema = schema
        self.perRoundTrip = perRoundTrip
        connection = server.connect(schema: schema)
        do {
            try StoreLayout.bringUpToDate(PostgresLayout(connection: connection, schema: schema))
        } catch {
            Progress.fail("PostgreSQL floor: cannot make Larder's tables in \(schema): \(error)")
        }
    }

    func discard() {
        connection.close()
        server.drop(schema: schema)
    }

    /// Runs one pipeline; any failure stops the bench.
    @discardableResult
    private func run(_ pipeline: PostgresPipeline, _ what: String) -> PostgresPipelineResult {
        do {
            let result = try connection.run(pipeline)
            if let failure = result.failure { Progress.fail("PostgreSQL floor, \(what): \(failure)") }
            return result
        } catch {
            Progress.fail("PostgreSQL floor, \(what): \(error)")
        }
    }

    private func entry(_ keys: KeySpace, _ n: Int, value: [UInt8], kind: Int64 = 1) -> [PostgresValue] {
        used += 1
        return [.int8(cacheID), .bytea([]), .bytea(keys.key(n)), .int8(kind), .bytea(value), .int8(Int64(value.count)),
                .int8(1_760_000_000_000), .int8(1_760_000_000_000), .null, .int8(used), .null, .int8(used)]
    }

    private func lookupParameters(_ keys: KeySpace, _ n: Int) -> [PostgresValue] {
        [.int8(cacheID), .bytea([]), .bytea(keys.key(n))]
    }

    /// Reads a lookup's row as larder reads it; the key must have been found.
    private func read(_ outcome: PostgresPipelineResult.Outcome, _ n: Int) {
        guard case .done(let r) = outcome, r.rowCount == 1 else { Progress.fail("PostgreSQL floor: key \(n) not found") }
        do {
            let value = try r.bytes(0, 2) ?? []
            let columns = try [0, 1, 3, 4, 5, 6].map { (c) throws(StoreError) in try r.int64(0, c) ?? 0 }
            checksum &+= Int(columns.reduce(0, &+)) &+ Int(value.last ?? 0)
        } catch {
            Progress.fail("PostgreSQL floor: key \(n)'s row cannot be read: \(error)")
        }
    }

    func insert(keys: KeySpace, _ numbers: Range<Int>, value: [UInt8], perTransaction: Int) -> UInt64 {
        let t0 = MonotonicClock.nanoseconds()
        for batch in numbers.chunks(of: perTransaction) {
            var p = PostgresPipeline()
            for k in batch { p.append(Self.insert, entry(keys, k, value: value)) }
            run(p, "insert")
        }
        return MonotonicClock.nanoseconds() - t0
    }

    func select(keys: KeySpace, _ numbers: [Int]) -> UInt64 {
        let t0 = MonotonicClock.nanoseconds()
        for batch in numbers.indices.chunks(of: perRoundTrip) {
            var p = PostgresPipeline()
            for k in batch { p.append(Self.lookup, lookupParameters(keys, numbers[k])) }
            let r = run(p, "lookup")
            for (k, n) in batch.enumerated() { read(r[k], numbers[n]) }
        }
        return MonotonicClock.nanoseconds() - t0
    }

    func insertObjects(keys: KeySpace, _ values: [[UInt8]], perTransaction: Int) -> [Int64] {
        var ids: [Int64] = []
        ids.reserveCapacity(values.count)
        for batch in values.indices.chunks(of: perTransaction) {
            var p = PostgresPipeline()
            for k in batch { p.append(Self.insert, entry(keys, k, value: values[k], kind: 2)) }
            let r = run(p, "insert objects")
            for k in 0..<r.count {
                guard case .done(let inserted) = r[k], let id = (try? inserted.int64(0, 0)) ?? nil else {
                    Progress.fail("PostgreSQL floor: an object's insert returned no id")
                }
                ids.append(id)
            }
        }
        return ids
    }

    func migrate(keys: KeySpace, _ numbers: Range<Int>, ids: [Int64], values: [[UInt8]], perTransaction: Int) -> UInt64 {
        let t0 = MonotonicClock.nanoseconds()
        for batch in numbers.chunks(of: perTransaction) {
            var p = PostgresPipeline()
            for k in batch {
                p.append(Self.lookup, lookupParameters(keys, k))
                used += 1
                p.append(Self.update, [.int8(2), .bytea(values[k]), .int8(Int64(values[k].count)), .int8(1_760_000_000_000),
                                       .int8(1_760_000_000_000), .null, .int8(used), .null, .int8(used), .int8(ids[k])] + lookupParameters(keys, k))
            }
            let r = run(p, "migrate")
            for (j, k) in batch.enumerated() {
                read(r[2 * j], k)
                guard case .done(let updated) = r[2 * j + 1], updated.rowsAffected == 1 else {
                    Progress.fail("PostgreSQL floor: object \(k) was not updated")
                }
            }
        }
        return MonotonicClock.nanoseconds() - t0
    }

    func replay(_ transactions: [RecordedTransaction]) -> UInt64 {
        var prepared: [String: PostgresStatement] = [:]
        func statement(_ recorded: RecordedStatement, _ values: [RecordedStatement.Value]) -> PostgresStatement {
            if let s = prepared[recorded.sql] { return s }
            // Declared as larder's connection declares them, from the values first bound.
            let types: [PostgresType] = values.map { v in
                switch v {
                case .integer: .int8
                case .real: .float8
                case .bytes: .bytea
                case .text, .null: .unspecified
                }
            }
            let s = Self.statement("larder_bench_\(prepared.count + 1)", recorded.sql, types)
            prepared[recorded.sql] = s
            return s
        }
        let t0 = MonotonicClock.nanoseconds()
        for transaction in transactions {
            var p = PostgresPipeline()
            for recorded in transaction {
                guard let values = recorded.values else {
                    p.append(sql: recorded.sql)
                    continue
                }
                p.append(statement(recorded, values), values.map { v in
                    switch v {
                    case .null: .null
                    case .integer(let n): .int8(n)
                    case .real(let d): .float8(d)
                    case .text(let t): .text(t)
                    case .bytes(let b): .bytea(b)
                    }
                })
            }
            run(p, "replay")
        }
        return MonotonicClock.nanoseconds() - t0
    }
}
