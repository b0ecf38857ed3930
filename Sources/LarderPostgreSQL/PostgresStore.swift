import LarderStorage

/// A Larder store on a PostgreSQL server: Larder's tables in a schema of
/// their own, shared by every sidecar that names the same database and schema.
public enum PostgresStore {
    /// The schema Larder's tables are in unless told otherwise (`--pg-schema`).
    public static let defaultSchema = "larder"

    /// The URL schemes that name a PostgreSQL server, in any case.
    public static let schemes = ["postgresql", "postgres"]

    /// Whether `location` names a PostgreSQL server: a `postgresql://` or
    /// `postgres://` URL, the scheme in any case (an empty one,
    /// `postgresql://`, leaves everything to libpq's PG* environment
    /// variables; `?service=name` reads pg_service.conf).
    public static func isURL(_ location: String) -> Bool {
        scheme(of: location).map { schemes.contains($0.lowercased()) } ?? false
    }

    /// The scheme of a location that starts `scheme://` (RFC 3986: a letter,
    /// then letters, digits, `+`, `-` or `.`), else nil. A directory whose
    /// name looks like one can be given as `./name://…`.
    public static func scheme(of location: String) -> Substring? {
        guard let end = location.firstRange(of: "://")?.lowerBound else { return nil }
        let scheme = location[..<end]
        func isLetter(_ b: UInt8) -> Bool { (b | 0x20) >= UInt8(ascii: "a") && (b | 0x20) <= UInt8(ascii: "z") }
        guard let first = scheme.utf8.first, isLetter(first), scheme.utf8.allSatisfy({ b in
            isLetter(b) || (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) || b == UInt8(ascii: "+") || b == UInt8(ascii: "-") || b == UInt8(ascii: ".")
        }) else { return nil }
        return scheme
    }

    /// `url` with its scheme in lowercase, as libpq recognises it.
    static func lowercasingScheme(_ url: String) -> String {
        guard let scheme = scheme(of: url) else { return url }
        return scheme.lowercased() + url[scheme.endIndex...]
    }

    /// Connects to the server `url` names, to open the store in `schema`
    /// (`Store(_:clock:)` makes or upgrades Larder's tables there first: see
    /// `PostgresLayout`).
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
                            timeout: Duration = PostgresConnection.defaultTimeout) throws(StoreError) -> OpenedDatabase {
        try LibPQ.require()
        if let why = schemaRefusal(schema) { throw .invalidArgument(field: "schema", reason: why) }
        let lockWait = min(Int64(LockWait.milliseconds), PostgresConnection.milliseconds(timeout) * 4 / 5)
        let connection = try PostgresConnection(
            url, settings: ["application_name": "larder"],
            sessionSetup: "SET search_path TO \(SQLDialect.quoted(schema)); SET lock_timeout = \(max(1, lockWait))",
            timeout: timeout)
        let lock = try connection.query("SELECT hashtextextended($1, 0)", [.text("larder writer " + schema)]).int64(0, 0)
        let location = Self.location(url: url, schema: schema)
        let database = PostgresSQLConnection(connection, location: location, writerLock: lock)
        // Channels are the database's, not a schema's: the name says which store's.
        let channel = "larder_" + String(UInt64(bitPattern: lock ?? 0), radix: 16)
        let otherWriters = PostgresOtherWriters(database: database, coherence: coherence, channel: channel)
        return OpenedDatabase(connection: database, layout: PostgresLayout(connection: connection, schema: schema),
                              otherWriters: otherWriters)
    }

    /// Why `schema` cannot hold a store, or nil. Larder quotes the name (it
    /// is taken exactly as given, never folded to lowercase), and drops and
    /// makes tables in it: `public`, where a database's own tables are unless
    /// told otherwise, `information_schema` and PostgreSQL's `pg_…` (reserved
    /// for the server's own) are refused, in any case — `"PUBLIC"` would be
    /// a second schema beside `public`, which anyone who meant that one would
    /// not find.
    public static func schemaRefusal(_ schema: String) -> String? {
        guard !schema.isEmpty, schema.utf8.count <= 63, !schema.utf8.contains(0) else {
            return "a PostgreSQL schema name has 1 to 63 bytes, and no U+0000"
        }
        let folded = schema.lowercased()
        guard folded != "public", folded != "information_schema", !folded.hasPrefix("pg_") else {
            return "\(schema) is PostgreSQL's own (public, information_schema and pg_… are the database's, in any case): "
                + "name a schema for Larder's tables alone, such as \(defaultSchema)"
        }
        return nil
    }

    /// The coherence a store on PostgreSQL keeps: as asked, or `poll` where
    /// the server could not LISTEN; nil for another kind of store.
    public static func coherence(of otherWriters: (any OtherWriters)?) -> PostgresCoherence? {
        (otherWriters as? PostgresOtherWriters)?.coherence
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
