import LarderCore

/// A Larder store on a PostgreSQL server: Larder's tables in a schema of
/// their own, shared by every sidecar that names the same database and schema.
public enum PostgresStore {
    /// The schema Larder's tables are in unless told otherwise (`--pg-schema`).
    public static let defaultSchema = "larder"

    /// Whether `location` names a PostgreSQL server: a `postgresql://` or
    /// `postgres://` URL (an empty one, `postgresql://`, leaves everything
    /// to libpq's PG* environment variables; `?service=name` reads
    /// pg_service.conf).
    public static func isURL(_ location: String) -> Bool {
        location.hasPrefix("postgresql://") || location.hasPrefix("postgres://")
    }

    /// Connects to the server `url` names, makes or upgrades Larder's tables
    /// in `schema` (see `PostgresStoreSchema`), and opens the store there.
    ///
    /// Write transactions on one store run one at a time, whichever sidecar
    /// runs them, as SQLite's do on one file: each takes an advisory lock
    /// named after the schema as it begins (in BEGIN's round trip), then
    /// learns whether another sidecar committed meanwhile. So what a
    /// transaction decides from what the sidecar holds — a cache's totals
    /// against its limits, whether an object still needs migrating, a batch's
    /// references — is as of that moment: limits hold, `migrate.run` from two
    /// sidecars migrates each object once, and entity batches apply one after
    /// the other. A sidecar waits for the lock up to four fifths of `timeout`
    /// (so that the wait ends before the call would give up on the server)
    /// and at most SQLite's busy timeout, 5 s, then answers -31002
    /// (retryable). A burst of writes is one transaction: sidecars take turns
    /// per burst, not per write.
    ///
    /// `coherence` says how a sidecar learns of the others' commits before
    /// answering from its memory tiers (see `PostgresCoherence`); `timeout`
    /// is the longest any call waits for the server (`PostgresConnection`).
    public static func open(url: String, schema: String = defaultSchema, coherence: PostgresCoherence = .strict,
                            timeout: Duration = PostgresConnection.defaultTimeout, clock: Clock = Clock()) throws(StoreError) -> Store {
        try LibPQ.require()
        guard !schema.isEmpty, schema.utf8.count <= 63, !schema.utf8.contains(0) else {
            throw .invalidArgument(field: "schema", reason: "a PostgreSQL schema name has 1 to 63 bytes, and no U+0000")
        }
        let lockWait = min(Int64(CacheSQL.busyTimeoutMilliseconds), PostgresConnection.milliseconds(timeout) * 4 / 5)
        let connection = try PostgresConnection(
            url, settings: ["application_name": "larder"],
            sessionSetup: "SET search_path TO \(PostgresStoreSchema.quoted(schema)); SET lock_timeout = \(max(1, lockWait))",
            timeout: timeout)
        try PostgresStoreSchema.migrate(connection, schema: schema)
        let lock = try connection.query("SELECT hashtextextended($1, 0)", [.text("larder writer " + schema)]).int64(0, 0)
        let location = Self.location(url: url, schema: schema)
        let database = PostgresSQLConnection(connection, location: location, writerLock: lock)
        // Channels are the database's, not a schema's: the name says which store's.
        let channel = "larder_" + String(UInt64(bitPattern: lock ?? 0), radix: 16)
        let otherWriters = PostgresOtherWriters(database: database, coherence: coherence, channel: channel)
        return try Store(connection: database, otherWriters: otherWriters, clock: clock)
    }

    /// The coherence a store on PostgreSQL keeps: as asked, or `poll` where
    /// the server could not LISTEN; nil for another kind of store.
    public static func coherence(of store: Store) -> PostgresCoherence? {
        (store.otherWriters as? PostgresOtherWriters)?.coherence
    }

    /// Where such a store is, for messages and answers (`Store.location`,
    /// `initialize`'s `store.path`): the URL without its password, and the schema.
    public static func location(url: String, schema: String) -> String {
        "\(redacted(url)) schema \(schema)"
    }

    /// `url` without its password, for messages and answers: one before the
    /// `@` becomes `***`, and so does a `password=` among the query's options.
    public static func redacted(_ url: String) -> String {
        var chars = Array(url)
        guard let scheme = (0..<max(0, chars.count - 2)).first(where: { chars[$0] == ":" && chars[$0 + 1] == "/" && chars[$0 + 2] == "/" })
        else { return url }
        let start = scheme + 3
        let end = chars[start...].firstIndex { $0 == "/" || $0 == "?" } ?? chars.count
        if let at = chars[start..<end].lastIndex(of: "@"), let colon = chars[start..<at].firstIndex(of: ":") {
            chars.replaceSubrange((colon + 1)..<at, with: "***")
        }
        guard let query = chars.firstIndex(of: "?") else { return String(chars) }
        let options = String(chars[(query + 1)...]).split(separator: "&", omittingEmptySubsequences: false).map { option in
            option.hasPrefix("password=") ? "password=***" : String(option)
        }
        return String(chars[...query]) + options.joined(separator: "&")
    }
}
