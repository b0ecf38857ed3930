import LarderStorage

/// The store's tables on either engine: one ladder of named steps, applied
/// in order and recorded by name in the store (`layout_steps`), as GRDB's
/// `DatabaseMigrator` does. A step says what it adds once, written against
/// `SQLDialect`, with a body per engine only where the engines' SQL differs;
/// a step that one engine does not need has no body there (SQLite's rebuild
/// of `entries` with `value` last), and is recorded all the same, so that
/// every store, on either engine, has the same steps behind it.
///
/// Before steps were recorded by name, each engine kept a counter of its own
/// (SQLite's `PRAGMA user_version`, up to 7; PostgreSQL's `meta` row
/// `schemaVersion`, up to 4), stepping through a ladder of its own. A store
/// with such a counter and no `layout_steps` is recorded as having the steps
/// its counter had reached (`Step.since`), and goes on from there. The
/// counter is then set one past the last value it had (`stepsRecorded`): an
/// older Larder, which knows only the counter, refuses the store as written
/// by a newer one, rather than using tables it does not know.
///
/// A store is brought up to date as it opens (`bringUpToDate`): under the
/// store's lock (SQLite's write lock; on PostgreSQL an advisory lock named
/// after the schema), so that of several processes or sidecars opening a new
/// store at once, exactly one makes its tables and the others find them made.
public enum StoreLayout {
    /// One step of the layout.
    public struct Step: Sendable {
        /// Recorded in `layout_steps` once applied; never renamed.
        public let name: String
        /// What the step runs on SQLite; nil when it has nothing to do there.
        let sqlite: String?
        /// ... and on PostgreSQL (run with the store's schema first on the search path).
        let postgreSQL: String?
        /// The value of each engine's counter from which its stores had this
        /// step (see the type's comment).
        let since: (sqlite: Int64, postgreSQL: Int64)

        /// The step's statements on `engine`, or nil.
        public func body(for engine: SQLDialect.Engine) -> String? {
            engine == .sqlite ? sqlite : postgreSQL
        }

        func since(_ engine: SQLDialect.Engine) -> Int64 {
            engine == .sqlite ? since.sqlite : since.postgreSQL
        }
    }

    /// Every step, in the order they are applied. A new step goes at the end;
    /// a step once released is never changed.
    public static let steps: [Step] = [
        Step(name: "caches", sqlite: cachesSQLite, postgreSQL: cachesPostgreSQL, since: (1, 1)),
        Step(name: "object types", both: objectTypes, since: (2, 1)),
        Step(name: "entity models", both: entityModels, since: (3, 1)),
        Step(name: "app versions and expiry", sqlite: appVersionsSQLite,
             postgreSQL: storeSettings(.postgreSQL), since: (4, 2)),
        Step(name: "encrypted caches", sqlite: sealingSQLite, postgreSQL: nil, since: (5, 1)),
        Step(name: "text in byte order and a commit count", sqlite: nil, postgreSQL: byteOrderPostgreSQL, since: (1, 2)),
        Step(name: "change log", sqlite: nil, postgreSQL: "CREATE TABLE changes (sequence bigint PRIMARY KEY, keys bytea)",
             since: (1, 3)),
        Step(name: "key generations", both: generations, since: (6, 4)),
        Step(name: "values last", sqlite: valueLastSQLite, postgreSQL: nil, since: (7, 1)),
        // Steps from here on are recorded by name only: no counter ever had them.
        Step(name: "leases", both: leases, since: (.max, .max)),
        Step(name: "entry revisions", sqlite: revisionsSQLite, postgreSQL: revisionsPostgreSQL, since: (.max, .max)),
        Step(name: "fetch leases", both: fetchLeases, since: (.max, .max)),
    ]

    /// The last value each engine's counter had before steps were recorded
    /// by name; the counter is set one past it once they are.
    public static let lastCounter: (sqlite: Int64, postgreSQL: Int64) = (7, 4)

    /// The value the engine's counter holds in a store whose steps are recorded by name.
    public static func stepsRecorded(_ engine: SQLDialect.Engine) -> Int64 {
        (engine == .sqlite ? lastCounter.sqlite : lastCounter.postgreSQL) + 1
    }

    /// Every step's statements on `engine`, in order, each ended by a
    /// semicolon: what a new store runs.
    public static func script(for engine: SQLDialect.Engine) -> String {
        steps.compactMap { step in
            step.body(for: engine).map { String($0.reversed().drop { $0 == ";" || $0.isWhitespace }.reversed()) + ";" }
        }.joined(separator: "\n")
    }

    /// Brings the layout of the store `database` holds up to date; returns
    /// whether it changed anything (false when it was, or another process
    /// made it so first). A store written by a newer Larder — a counter past
    /// `stepsRecorded`, or a step this one does not know — is refused with
    /// `.unavailable`, and left as it is.
    @discardableResult
    public static func bringUpToDate(_ database: some LayoutDatabase) throws(StoreError) -> Bool {
        // Looked at first without the lock: a store that is up to date, as
        // nearly every one is, is opened without waiting for its writers.
        guard try !Plan(database).isEmpty else { return false }
        return try database.whileHoldingLayoutLock { () throws(StoreError) -> Bool in
            let plan = try Plan(database)
            guard !plan.isEmpty else { return false }
            try database.execute("CREATE TABLE IF NOT EXISTS layout_steps (name \(database.dialect.text) PRIMARY KEY)")
            // Where the counter says what the store has, it alone does.
            if plan.byCounter { try database.execute("DELETE FROM layout_steps") }
            for step in plan.taken { try record(step, in: database) }
            for step in plan.toTake {
                if let body = step.body(for: database.dialect.engine) { try database.execute(body) }
                try record(step, in: database)
            }
            try database.setLayoutCounter(stepsRecorded(database.dialect.engine))
            return true
        }
    }

    /// A step's name is the ladder's own text, in quotes all the same.
    private static func record(_ step: Step, in database: some LayoutDatabase) throws(StoreError) {
        let literal = "'" + step.name.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "''") + "'"
        try database.execute("INSERT INTO layout_steps (name) VALUES (\(literal))")
    }

    /// What a store's layout lacks.
    struct Plan {
        /// Steps the store took before they were recorded by name, which its counter says it has.
        var taken: [Step] = []
        /// Steps it has yet to take, in order.
        var toTake: [Step] = []
        /// Whether the store's counter says what it has, rather than `layout_steps`.
        var byCounter = false

        var isEmpty: Bool { taken.isEmpty && toTake.isEmpty }

        init(_ database: some LayoutDatabase) throws(StoreError) {
            let engine = database.dialect.engine
            let counter = try database.layoutCounter()
            if counter > stepsRecorded(engine) {
                throw refusal(database, "layout \(counter); this one knows up to \(stepsRecorded(engine))")
            }
            guard counter == stepsRecorded(engine) else {
                // A new store (0), or one from before steps were recorded.
                byCounter = true
                for step in steps {
                    if counter > 0 && counter >= step.since(engine) { taken.append(step) } else { toTake.append(step) }
                }
                return
            }
            let recorded = Set(try database.recordedSteps())
            if let unknown = recorded.subtracting(steps.map(\.name)).sorted().first {
                throw refusal(database, "layout step '\(unknown)', which this one does not know")
            }
            toTake = steps.filter { !recorded.contains($0.name) }
        }
    }

    private static func refusal(_ database: some LayoutDatabase, _ what: String) -> StoreError {
        .unavailable(path: database.location, reason: "the store was written by a newer Larder (\(what))")
    }
}

extension StoreLayout.Step {
    /// A step written once for both engines.
    init(name: String, both body: (SQLDialect) -> String, since: (sqlite: Int64, postgreSQL: Int64)) {
        self.init(name: name, sqlite: body(.sqlite), postgreSQL: body(.postgreSQL), since: since)
    }
}

// MARK: - The steps' statements

extension StoreLayout {
    /// Cache settings and every entry of every cache. PostgreSQL's stores
    /// began later, with the columns SQLite's gained up to its counter 5
    /// (`app versions and expiry`, `encrypted caches`) made at once; `bytea`
    /// for blobs, `bigint` identities for rowids, and group and key as
    /// `bytea`, whose order is byte order — SQLite's binary collation — and
    /// which hold an encrypted cache's MACs as well as text.
    static let cachesSQLite = """
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
        """

    static let cachesPostgreSQL = """
        CREATE TABLE caches (
            id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            name text NOT NULL UNIQUE,
            config text NOT NULL,
            app_version text,
            key_check bytea,
            rekey_check bytea,
            rekey_cursor bigint
        );
        CREATE TABLE entries (
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
        CREATE INDEX entries_by_use ON entries (cache, used);
        CREATE INDEX entries_by_expiry ON entries (cache, expires_at) WHERE expires_at IS NOT NULL
        """

    /// Object types: every registered version of every type, as its
    /// definition's JSON. (Names are text in byte order, `SQLDialect.text`;
    /// what is only read back is plain text, on either engine.)
    static func objectTypes(_ d: SQLDialect) -> String {
        """
        CREATE TABLE IF NOT EXISTS schemas (
            type \(d.text) NOT NULL,
            version \(d.text) NOT NULL,
            definition TEXT NOT NULL,
            PRIMARY KEY (type, version)
        )
        """
    }

    /// Entity models by name, as their canonical definition's JSON. Each
    /// entity's records live in a table of their own (see `EntityTable`).
    static func entityModels(_ d: SQLDialect) -> String {
        """
        CREATE TABLE IF NOT EXISTS entity_models (
            name \(d.text) NOT NULL PRIMARY KEY,
            definition TEXT NOT NULL
        )
        """
    }

    /// The store's settings, among them the last app version it saw.
    static func storeSettings(_ d: SQLDialect) -> String {
        """
        CREATE TABLE IF NOT EXISTS store_meta (
            name \(d.text) NOT NULL PRIMARY KEY,
            value TEXT NOT NULL
        )
        """
    }

    /// The app version each cache's data was written under, and the last one
    /// the store saw (section 6.9 of the protocol): a cache is wiped when an
    /// app of another version first uses it. And when each entry expires
    /// (its validation plus its ttl, else its cache's lifespan; NULL when
    /// never), indexed for the entries that do: expired entries are found,
    /// to be evicted first and purged in the background, without reading the
    /// rest. Entries written before get theirs from what they had.
    static let appVersionsSQLite = """
        ALTER TABLE caches ADD COLUMN app_version TEXT;
        \(storeSettings(.sqlite));
        ALTER TABLE entries ADD COLUMN expires_at INTEGER;
        CREATE INDEX IF NOT EXISTS entries_by_expiry ON entries (cache, expires_at) WHERE expires_at IS NOT NULL;
        UPDATE entries SET expires_at = validated_at + COALESCE(ttl, (
            SELECT CAST(json_extract(config, '$.lifespan') * 1000 AS INTEGER) FROM caches WHERE caches.id = entries.cache))
        WHERE COALESCE(ttl, (SELECT json_extract(config, '$.lifespan') FROM caches WHERE caches.id = entries.cache)) > 0
        """

    /// What encrypted caches need (see `CacheSealer`): each entry's key,
    /// sealed, and per cache the check value of its key and the state of a
    /// rekey under way.
    static let sealingSQLite = """
        ALTER TABLE entries ADD COLUMN sealed_key BLOB;
        ALTER TABLE caches ADD COLUMN key_check BLOB;
        ALTER TABLE caches ADD COLUMN rekey_check BLOB;
        ALTER TABLE caches ADD COLUMN rekey_cursor INTEGER
        """

    /// Text ordered as SQLite orders it, by its bytes (collation "C"),
    /// whatever the database's locale: cache names, types and versions are
    /// listed in that order. And the count of write transactions committed
    /// (`commits`), by which a sidecar learns that another one wrote (see
    /// `PostgresOtherWriters`), as SQLite's processes learn it from the WAL index.
    static let byteOrderPostgreSQL = """
        CREATE TABLE commits (id smallint PRIMARY KEY CHECK (id = 1), sequence bigint NOT NULL);
        INSERT INTO commits VALUES (1, 0);
        ALTER TABLE caches ALTER COLUMN name TYPE text COLLATE "C";
        ALTER TABLE schemas ALTER COLUMN type TYPE text COLLATE "C", ALTER COLUMN version TYPE text COLLATE "C";
        ALTER TABLE entity_models ALTER COLUMN name TYPE text COLLATE "C"
        """

    /// Each encrypted cache's generation, bound into what it seals (see
    /// `CacheSealer`), and the one a rekey under way seals with: caches
    /// encrypted before this step have none.
    static func generations(_ d: SQLDialect) -> String {
        "ALTER TABLE caches ADD COLUMN generation \(d.bytes); ALTER TABLE caches ADD COLUMN rekey_generation \(d.bytes)"
    }

    /// The entries table again, its columns in the order they had, but
    /// `value` last: SQLite makes no zeros for a zero blob in a row's last
    /// column, so a large value is stored as its size in zeros, a record of a
    /// few bytes, and its bytes then copied over them in place. Elsewhere in
    /// the row the zeros were made whole, then copied into the pages: three
    /// copies of a 60 MB value at once in a memory-only store, where its pages
    /// are memory too. PostgreSQL, which has no such copies, keeps its layout.
    static let valueLastSQLite = """
        CREATE TABLE entries_value_last (
            id INTEGER PRIMARY KEY,
            cache INTEGER NOT NULL,
            grp TEXT NOT NULL,
            key TEXT NOT NULL,
            kind INTEGER NOT NULL,
            size INTEGER NOT NULL,
            stored_at INTEGER NOT NULL,
            validated_at INTEGER NOT NULL,
            ttl INTEGER,
            used INTEGER NOT NULL,
            expires_at INTEGER,
            sealed_key BLOB,
            value BLOB NOT NULL,
            UNIQUE (cache, grp, key)
        );
        INSERT INTO entries_value_last (id, cache, grp, key, kind, size, stored_at, validated_at, ttl, used, expires_at, sealed_key, value)
            SELECT id, cache, grp, key, kind, size, stored_at, validated_at, ttl, used, expires_at, sealed_key, value FROM entries;
        DROP TABLE entries;
        ALTER TABLE entries_value_last RENAME TO entries;
        CREATE INDEX entries_by_use ON entries (cache, used);
        CREATE INDEX entries_by_expiry ON entries (cache, expires_at) WHERE expires_at IS NOT NULL
        """

    /// Leases on names (`LockTable`): a row per name ever locked, kept after
    /// release (`holder` and `expires_at` NULL) so that the name's next
    /// fencing token follows its last one. Names in byte order.
    static func leases(_ d: SQLDialect) -> String {
        """
        CREATE TABLE locks (
            name \(d.text) PRIMARY KEY,
            token \(d.integer) NOT NULL,
            holder \(d.text),
            expires_at \(d.integer)
        )
        """
    }
    /// Each entry's revision (SPEC 6.14), and where new ones come from: a
    /// row ids never went past, so that a revision given to an entry written
    /// before this step (its row's id, unique in the table) is never given
    /// again. SQLite's entries are made again with `revision` before `value`,
    /// which must stay last (`values last`); its revisions come from a
    /// counter row, PostgreSQL's from a sequence, which never gives a number
    /// twice even when the transaction that took it rolls back. Either
    /// hands out blocks of `EntryRevisions.blockSize` (the sequence's increment).
    static let revisionsSQLite = """
        CREATE TABLE entries_with_revisions (
            id INTEGER PRIMARY KEY,
            cache INTEGER NOT NULL,
            grp TEXT NOT NULL,
            key TEXT NOT NULL,
            kind INTEGER NOT NULL,
            size INTEGER NOT NULL,
            stored_at INTEGER NOT NULL,
            validated_at INTEGER NOT NULL,
            ttl INTEGER,
            used INTEGER NOT NULL,
            expires_at INTEGER,
            sealed_key BLOB,
            revision INTEGER NOT NULL,
            value BLOB NOT NULL,
            UNIQUE (cache, grp, key)
        );
        INSERT INTO entries_with_revisions
            (id, cache, grp, key, kind, size, stored_at, validated_at, ttl, used, expires_at, sealed_key, revision, value)
            SELECT id, cache, grp, key, kind, size, stored_at, validated_at, ttl, used, expires_at, sealed_key, id, value FROM entries;
        DROP TABLE entries;
        ALTER TABLE entries_with_revisions RENAME TO entries;
        CREATE INDEX entries_by_use ON entries (cache, used);
        CREATE INDEX entries_by_expiry ON entries (cache, expires_at) WHERE expires_at IS NOT NULL;
        CREATE TABLE entry_revisions (id INTEGER PRIMARY KEY CHECK (id = 1), next INTEGER NOT NULL);
        INSERT INTO entry_revisions SELECT 1, COALESCE(MAX(id), 0) + 1 FROM entries
        """

    static let revisionsPostgreSQL = """
        ALTER TABLE entries ADD COLUMN revision bigint;
        UPDATE entries SET revision = id;
        ALTER TABLE entries ALTER COLUMN revision SET NOT NULL;
        CREATE SEQUENCE entry_revisions INCREMENT BY \(EntryRevisions.blockSize) MINVALUE 1;
        SELECT setval('entry_revisions', COALESCE(MAX(id), 0) + 1, false) FROM entries
        """

    /// Fetch leases on keys (`cache.getOrFetch` with `shared`): a row per
    /// key being fetched, apart from `locks`, whose names are the users'.
    /// The key's columns are as the entries' (text on SQLite, bytes on
    /// PostgreSQL; an encrypted cache's MACs), so that a key holding U+0000
    /// can be leased, and an encrypted cache's keys are not written in clear.
    static func fetchLeases(_ d: SQLDialect) -> String {
        let keyType = d.engine == .sqlite ? "TEXT" : d.bytes
        return """
            CREATE TABLE fetch_leases (
                cache \(d.integer) NOT NULL,
                grp \(keyType) NOT NULL,
                key \(keyType) NOT NULL,
                holder \(d.text) NOT NULL,
                expires_at \(d.integer) NOT NULL,
                PRIMARY KEY (cache, grp, key)
            )
            """
    }
}
