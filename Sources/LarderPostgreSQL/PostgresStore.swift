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
    public static func open(url: String, schema: String = defaultSchema, clock: Clock = Clock()) throws(StoreError) -> Store {
        let connection = try PostgresConnection(
            url, settings: ["application_name": "larder"],
            sessionSetup: "SET search_path TO \(PostgresStoreSchema.quoted(schema))")
        try PostgresStoreSchema.migrate(connection, schema: schema)
        let location = "\(redacted(url)) schema \(schema)"
        let database = PostgresSQLConnection(connection, location: location)
        return try Store(connection: database, otherWriters: PostgresOtherWriters(database: database), clock: clock)
    }

    /// `url` without its password, for messages and answers.
    public static func redacted(_ url: String) -> String {
        let chars = Array(url)
        guard let scheme = (0..<max(0, chars.count - 2)).first(where: { chars[$0] == ":" && chars[$0 + 1] == "/" && chars[$0 + 2] == "/" })
        else { return url }
        let start = scheme + 3
        let end = chars[start...].firstIndex { $0 == "/" || $0 == "?" } ?? chars.count
        guard let at = chars[start..<end].lastIndex(of: "@"), let colon = chars[start..<at].firstIndex(of: ":") else { return url }
        return String(chars[..<colon]) + ":***" + String(chars[at...])
    }
}
