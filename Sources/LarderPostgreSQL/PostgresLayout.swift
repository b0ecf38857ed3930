import LarderStorage

/// Larder's tables on PostgreSQL, in a schema of their own (`larder` unless
/// told otherwise), laid out by the core's `StoreLayout`. The engine's counter is the
/// `meta` table's row `schemaVersion`. Sidecars on many hosts may start at
/// once against one database: each brings the layout up to date holding a
/// transaction-scoped advisory lock named after the schema, and looks at it
/// again once it holds it, so exactly one of them does the work and the
/// others find it done.
public struct PostgresLayout: LayoutDatabase {
    let connection: PostgresConnection
    let schema: String
    /// The schema's name as an identifier.
    let quoted: String

    public var dialect: SQLDialect { .postgreSQL }
    public var location: String { schema }

    /// The store in `schema` on `connection`, whose layout `StoreLayout`
    /// brings up to date, making the schema if need be.
    public init(connection: PostgresConnection, schema: String = "larder") {
        self.connection = connection
        self.schema = schema
        quoted = SQLDialect.quoted(schema)
    }

    /// The layout counter of the store in `schema` (0 before any).
    public static func counter(_ connection: PostgresConnection, schema: String) throws(StoreError) -> Int64 {
        try PostgresLayout(connection: connection, schema: schema).layoutCounter()
    }

    public func whileHoldingLayoutLock<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        try connection.transaction { () throws(StoreError) -> T in
            // hashtextextended: PostgreSQL's own 64-bit hash of the text, the lock's key.
            _ = try connection.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [.text("larder schema " + schema)])
            _ = try connection.execute("""
                CREATE SCHEMA IF NOT EXISTS \(quoted);
                SET LOCAL search_path TO \(quoted);
                CREATE TABLE IF NOT EXISTS meta (name text PRIMARY KEY, value text NOT NULL)
                """)
            return try body()
        }
    }

    public func execute(_ sql: String) throws(StoreError) {
        _ = try connection.execute(sql)
    }

    public func layoutCounter() throws(StoreError) -> Int64 {
        guard try exists("meta") else { return 0 }
        let r = try connection.query("SELECT value FROM \(quoted).meta WHERE name = 'schemaVersion'")
        guard r.rowCount > 0, let text = try r.string(0, 0) else { return 0 }
        guard let counter = Int64(text) else {
            throw .corrupt(.cacheSettings(cache: "*"), reason: "the store's layout counter is not a number: \(text)")
        }
        return counter
    }

    public func setLayoutCounter(_ value: Int64) throws(StoreError) {
        _ = try connection.query("""
            INSERT INTO \(quoted).meta (name, value) VALUES ('schemaVersion', $1)
            ON CONFLICT (name) DO UPDATE SET value = excluded.value
            """, [.text(String(value))])
    }

    // Asked only of a store whose counter says its steps are recorded, so
    // the table is there: no round trip to look for it first.
    public func recordedSteps() throws(StoreError) -> [String] {
        let r = try connection.query("SELECT name FROM \(quoted).layout_steps")
        var names: [String] = []
        for row in 0..<r.rowCount { if let name = try r.string(row, 0) { names.append(name) } }
        return names
    }

    /// Whether the schema has the table `name` (and the schema exists).
    private func exists(_ table: String) throws(StoreError) -> Bool {
        let r = try connection.query("SELECT (to_regclass($1) IS NOT NULL)::int::int8", [.text(quoted + "." + SQLDialect.quoted(table))])
        return try r.int64(0, 0) == 1
    }
}
