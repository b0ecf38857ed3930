/// The store's SQLite schema, versioned with `PRAGMA user_version` so a newer
/// Larder can upgrade a store an older one wrote.
enum StoreSchema {
    static let version: Int64 = 7

    static func migrate(_ db: SQLiteDatabase) throws(StoreError) {
        guard try checkedVersion(db) < version else { return }
        // Two processes may open a new store at once: take the write lock
        // (waiting for the other), then look again before creating anything.
        try db.execute("BEGIN IMMEDIATE")
        do {
            let current = try checkedVersion(db)
            if current < 1 { try createCaches(db) }
            if current < 2 { try createSchemas(db) }
            if current < 3 { try createEntityModels(db) }
            if current < 4 { try addAppVersions(db) }
            if current < 5 { try db.execute(CacheSQL.sealing) }
            if current < 6 { try db.execute(CacheSQL.generations) }
            if current < 7 { try db.execute(CacheSQL.valueLast) }
            try db.execute("PRAGMA user_version = \(version); COMMIT")
        } catch {
            try? db.execute("ROLLBACK")
            throw error
        }
    }

    private static func checkedVersion(_ db: SQLiteDatabase) throws(StoreError) -> Int64 {
        let current = try db.integer("PRAGMA user_version")
        if current > version {
            throw .unavailable(path: db.path, reason: "the store was written by a newer Larder (schema \(current), this one knows \(version))")
        }
        return current
    }

    private static func createCaches(_ db: SQLiteDatabase) throws(StoreError) {
        try db.execute(CacheSQL.tables)
    }

    /// Object schemas: every registered version of every type, as its definition's JSON.
    private static func createSchemas(_ db: SQLiteDatabase) throws(StoreError) {
        try db.execute("""
            CREATE TABLE IF NOT EXISTS schemas (
                type TEXT NOT NULL,
                version TEXT NOT NULL,
                definition TEXT NOT NULL,
                PRIMARY KEY (type, version)
            );
            """)
    }

    /// The app version each cache's data was written under, and the last one
    /// the store saw (section 6.9 of the protocol): a cache is wiped when an
    /// app of another version first uses it. And each entry's expiry, indexed.
    private static func addAppVersions(_ db: SQLiteDatabase) throws(StoreError) {
        try db.execute("""
            ALTER TABLE caches ADD COLUMN app_version TEXT;
            CREATE TABLE IF NOT EXISTS store_meta (
                name TEXT NOT NULL PRIMARY KEY,
                value TEXT NOT NULL
            );
            """)
        try db.execute(CacheSQL.expiry)
        // Entries written before: their expiry from their ttl, else their cache's lifespan.
        try db.execute("""
            UPDATE entries SET expires_at = validated_at + COALESCE(ttl, (
                SELECT CAST(json_extract(config, '$.lifespan') * 1000 AS INTEGER) FROM caches WHERE caches.id = entries.cache))
            WHERE COALESCE(ttl, (SELECT json_extract(config, '$.lifespan') FROM caches WHERE caches.id = entries.cache)) > 0
            """)
    }

    /// Entity models by name, as their canonical definition's JSON. Each
    /// entity's records live in a table of their own (see `EntityTable`).
    private static func createEntityModels(_ db: SQLiteDatabase) throws(StoreError) {
        try db.execute("""
            CREATE TABLE IF NOT EXISTS entity_models (
                name TEXT NOT NULL PRIMARY KEY,
                definition TEXT NOT NULL
            );
            """)
    }
}
