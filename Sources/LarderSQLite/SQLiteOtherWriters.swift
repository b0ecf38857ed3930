import LarderStorage

/// Other processes' commits to a SQLite store on disk: SQLite's
/// data_version, asked only when the WAL index's header changed.
public final class SQLiteOtherWriters: OtherWriters {
    private unowned let database: SQLiteDatabase
    /// SQLite's data_version when this process last looked.
    private var dataVersion: Int64 = 0
    /// The WAL-index header, and how it read just before data_version was last asked.
    private var walIndex: WALIndexHeader?
    private var walIndexSeen: WALIndexHeader.Snapshot?
    /// How often data_version was asked (for tests: the header spares most asks).
    public private(set) var dataVersionQueries = 0

    public init(database: SQLiteDatabase) {
        self.database = database
    }

    public func start() throws(StoreError) {
        // Mapped once: by now SQLite has created the -shm file. Without one
        // (no WAL), every check asks data_version.
        walIndex = WALIndexHeader(shmPath: database.path + "-shm")
        walIndexSeen = walIndex?.read()
        dataVersion = try database.dataVersion()
    }

    public func stop() {
        walIndex = nil
    }

    /// SQLite says only that another process committed: everything may have changed.
    public func changesSinceLastLook() throws(StoreError) -> ForeignChanges? {
        // Read before asking: a commit landing in between is then seen by the
        // pragma now, or makes the header differ next time.
        let header = walIndex?.read()
        if let header, header == walIndexSeen { return nil }
        dataVersionQueries += 1
        let v = try database.dataVersion()
        walIndexSeen = header
        guard v != dataVersion else { return nil }
        dataVersion = v
        return .everything
    }
}
