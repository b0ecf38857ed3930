/// The store's SQLite schema, versioned with `PRAGMA user_version` so a newer
/// Larder can upgrade a store an older one wrote.
enum StoreSchema {
    static let version: Int64 = 2

    static func migrate(_ db: Database) throws(StoreError) {
        let current = try db.integer("PRAGMA user_version")
        if current > version {
            throw .unavailable(path: db.path, reason: "the store was written by a newer Larder (schema \(current), this one knows \(version))")
        }
        guard current < version else { return }
        if current < 1 { try createCaches(db) }
        if current < 2 { try createSchemas(db) }
    }

    private static func createCaches(_ db: Database) throws(StoreError) {
        try db.execute("""
            BEGIN;
            CREATE TABLE IF NOT EXISTS caches (
                id INTEGER PRIMARY KEY,
                name TEXT NOT NULL UNIQUE,
                config TEXT NOT NULL
            );
            CREATE TABLE IF NOT EXISTS entries (
                id INTEGER PRIMARY KEY,
                cache INTEGER NOT NULL,
                grp TEXT NOT NULL,
                key TEXT NOT NULL,
                kind INTEGER NOT NULL,
                value BLOB NOT NULL,
                size INTEGER NOT NULL,
                stored_at INTEGER NOT NULL,
                validated_at INTEGER NOT NULL,
                ttl INTEGER,
                used INTEGER NOT NULL,
                UNIQUE (cache, grp, key)
            );
            CREATE INDEX IF NOT EXISTS entries_by_use ON entries (cache, used);
            PRAGMA user_version = 1;
            COMMIT;
            """)
    }

    /// Object schemas: every registered version of every type, as its definition's JSON.
    private static func createSchemas(_ db: Database) throws(StoreError) {
        try db.execute("""
            BEGIN;
            CREATE TABLE IF NOT EXISTS schemas (
                type TEXT NOT NULL,
                version TEXT NOT NULL,
                definition TEXT NOT NULL,
                PRIMARY KEY (type, version)
            );
            PRAGMA user_version = 2;
            COMMIT;
            """)
    }
}
