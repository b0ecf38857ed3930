import LarderCore

/// Larder's tables on PostgreSQL, in a schema of their own (`larder` unless
/// told otherwise), versioned in its `meta` table as SQLite's store is with
/// `PRAGMA user_version`. Sidecars on many hosts may start at once against
/// one database: each creates or upgrades the tables holding a
/// transaction-scoped advisory lock named after the schema, and looks at the
/// version again once it holds it, so exactly one of them does the work and
/// the others find it done.
///
/// The tables are the SQLite store's (`StoreSchema`, store schema 6) in
/// PostgreSQL's terms: `bytea` for blobs, `bigint` identities for rowids,
/// and group and key as `bytea`, whose order is byte order — SQLite's binary
/// collation — and which hold an encrypted cache's MACs as well as text.
public enum PostgresStoreSchema {
    /// The layout this Larder writes; a database with a newer one is refused.
    public static let version: Int64 = 4

    /// Creates or upgrades Larder's tables in `schema`; returns whether this
    /// call changed anything (false when another sidecar had done it).
    @discardableResult
    public static func migrate(_ c: PostgresConnection, schema: String = "larder") throws(StoreError) -> Bool {
        let s = quoted(schema)
        return try c.transaction { () throws(StoreError) -> Bool in
            // hashtextextended: PostgreSQL's own 64-bit hash of the text, the lock's key.
            _ = try c.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [.text("larder schema " + schema)])
            _ = try c.execute("CREATE SCHEMA IF NOT EXISTS \(s)")
            _ = try c.execute("CREATE TABLE IF NOT EXISTS \(s).meta (name text PRIMARY KEY, value text NOT NULL)")
            let current = try storedVersion(c, schema: s)
            if current > version {
                throw .unavailable(path: schema, reason: "the store was written by a newer Larder (schema \(current), this one knows \(version))")
            }
            guard current < version else { return false }
            if current < 1 { try createTables(c, schema: s) }
            if current < 2 { try orderTextByBytes(c, schema: s) }
            if current < 3 { try recordChanges(c, schema: s) }
            if current < 4 { try addGenerations(c, schema: s) }
            _ = try c.query("""
                INSERT INTO \(s).meta (name, value) VALUES ('schemaVersion', $1)
                ON CONFLICT (name) DO UPDATE SET value = excluded.value
                """, [.text(String(version))])
            return true
        }
    }

    /// The version the schema's tables are at; 0 before any.
    public static func storedVersion(_ c: PostgresConnection, schema quotedSchema: String) throws(StoreError) -> Int64 {
        let r = try c.query("SELECT value FROM \(quotedSchema).meta WHERE name = 'schemaVersion'")
        guard r.rowCount > 0, let text = try r.string(0, 0) else { return 0 }
        guard let v = Int64(text) else {
            throw .corrupt(.cacheSettings(cache: "*"), reason: "the store's schema version is not a number: \(text)")
        }
        return v
    }

    private static func createTables(_ c: PostgresConnection, schema s: String) throws(StoreError) {
        _ = try c.execute("""
            CREATE TABLE \(s).caches (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                name text NOT NULL UNIQUE,
                config text NOT NULL,
                app_version text,
                key_check bytea,
                rekey_check bytea,
                rekey_cursor bigint
            );
            CREATE TABLE \(s).entries (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                cache bigint NOT NULL,
                grp bytea NOT NULL,
                key bytea NOT NULL,
                kind integer NOT NULL,
                value bytea NOT NULL,
                size bigint NOT NULL,
                stored_at bigint NOT NULL,
                validated_at bigint NOT NULL,
                ttl bigint,
                used bigint NOT NULL,
                expires_at bigint,
                sealed_key bytea,
                UNIQUE (cache, grp, key)
            );
            CREATE INDEX entries_by_use ON \(s).entries (cache, used);
            CREATE INDEX entries_by_expiry ON \(s).entries (cache, expires_at) WHERE expires_at IS NOT NULL;
            CREATE TABLE \(s).schemas (
                type text NOT NULL,
                version text NOT NULL,
                definition text NOT NULL,
                PRIMARY KEY (type, version)
            );
            CREATE TABLE \(s).entity_models (
                name text PRIMARY KEY,
                definition text NOT NULL
            );
            """)
    }

    /// What the core's SQL needs beyond layout 1: the store's settings
    /// (`store_meta`, as in SQLite's store), the count of write transactions
    /// committed (`commits`, see `PostgresOtherWriters`), and text ordered as SQLite
    /// orders it, by its bytes (collation "C"), whatever the database's
    /// locale: cache names, types and versions are listed in that order.
    private static func orderTextByBytes(_ c: PostgresConnection, schema s: String) throws(StoreError) {
        _ = try c.execute("""
            CREATE TABLE \(s).store_meta (name text COLLATE "C" PRIMARY KEY, value text NOT NULL);
            CREATE TABLE \(s).commits (id smallint PRIMARY KEY CHECK (id = 1), sequence bigint NOT NULL);
            INSERT INTO \(s).commits VALUES (1, 0);
            ALTER TABLE \(s).caches ALTER COLUMN name TYPE text COLLATE "C";
            ALTER TABLE \(s).schemas ALTER COLUMN type TYPE text COLLATE "C", ALTER COLUMN version TYPE text COLLATE "C";
            ALTER TABLE \(s).entity_models ALTER COLUMN name TYPE text COLLATE "C";
            """)
    }

    /// What each commit changed, under its number in `commits` (see
    /// `PostgresOtherWriters`): NULL for anything, else `ChangeRecord`'s bytes.
    private static func recordChanges(_ c: PostgresConnection, schema s: String) throws(StoreError) {
        _ = try c.execute("CREATE TABLE \(s).changes (sequence bigint PRIMARY KEY, keys bytea)")
    }

    /// Each encrypted cache's generation and its rekey's, as in store schema 6.
    private static func addGenerations(_ c: PostgresConnection, schema s: String) throws(StoreError) {
        _ = try c.execute("ALTER TABLE \(s).caches ADD COLUMN generation bytea, ADD COLUMN rekey_generation bytea")
    }

    /// `name` as a PostgreSQL identifier: a schema named by the user is always one identifier.
    public static func quoted(_ name: String) -> String { SQLDialect.quoted(name) }
}
