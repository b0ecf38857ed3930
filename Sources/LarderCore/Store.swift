#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LarderSystem
import LarderStorage
import LarderSQLite

/// One store: a directory holding one SQLite database (or a private
/// in-memory database), or a database on a server reached through the
/// storage seam; and the caches inside it.
public final class Store {
    /// The directory, or nil for an in-memory store or one on a server.
    public let directory: String?
    /// Whether what is written outlives the process (false only in memory).
    public let isPersistent: Bool
    /// The connection every statement goes through.
    let database: any SQLConnection
    /// The same connection when it is SQLite's (in a file or in memory):
    /// for what only a file has (its write-ahead log, its path on disk).
    let sqlite: SQLiteDatabase?
    public let clock: Clock
    /// The write transactions, and who follows them.
    let transactions: Transactions
    /// How other writers' commits are noticed; nil when nobody else can write.
    public var otherWriters: (any OtherWriters)? { transactions.otherWriters }
    /// Recency noted by reads, written with the next commit.
    let recency: RecencyLog
    /// The versioned objects' types.
    let objects: ObjectStore
    /// Entity models, their records, and what is staged.
    let entities: EntityStore
    /// The session's keys for encrypted caches, and the store's salt.
    let encryption: StoreEncryption
    /// The store-wide disk budget (`--max-store-bytes`).
    let budget: StoreBudget
    /// The caches, and what each of them sees of the store.
    let caches: CacheRegistry
    /// Leases on names, shared with every process and sidecar on the store.
    let locks: LockTable
    /// The files SQLite opened, to notice them deleted or replaced (Store+Lost.swift); nil in memory.
    var openedFiles: OpenedFiles?
    /// Why the store can no longer be used, once its database file was found deleted or replaced.
    public internal(set) var lost: StoreError?

    public static let databaseFileName = "larder.db"

    /// Opens the store in `directory`, creating the directory (and its
    /// parents) if needed; nil opens a private in-memory store.
    public init(directory: String?, clock: Clock = Clock()) throws(StoreError) {
        self.directory = directory
        self.clock = clock
        isPersistent = directory != nil
        let sqlite: SQLiteDatabase
        if let directory {
            warnings = try Self.createDirectory(directory)
            let path = directory + "/" + Self.databaseFileName
            sqlite = try SQLiteDatabase(path: path)
            // Before WAL mode creates the log and its index: SQLite gives them the database's mode.
            warnings += Self.keepPrivate(path, path + "-wal", path + "-shm", path + "-journal")
        } else {
            sqlite = try SQLiteDatabase(path: ":memory:")
        }
        self.sqlite = sqlite
        database = sqlite
        transactions = Transactions(database: sqlite, otherWriters: directory == nil ? nil : SQLiteOtherWriters(database: sqlite))
        (recency, objects, entities, encryption, budget, caches) = Self.subsystems(database: sqlite, transactions: transactions, clock: clock)
        locks = LockTable(transactions: transactions, clock: clock)
        do {
            try configure(sqlite)
            try transactions.startWatching()
        } catch {
            sqlite.close()
            throw error
        }
    }

    /// A store in the database an engine opened (`PostgresStore.open`), its
    /// layout brought up to date first.
    public convenience init(_ opened: OpenedDatabase, clock: Clock = Clock()) throws(StoreError) {
        try StoreLayout.bringUpToDate(opened.layout)
        try self.init(connection: opened.connection, otherWriters: opened.otherWriters, clock: clock)
    }

    /// A store in a database reached through `connection`, whose tables are
    /// already made (by the engine's own schema: see `LarderPostgreSQL`);
    /// `otherWriters` notices other sidecars' commits.
    public init(connection: any SQLConnection, otherWriters: (any OtherWriters)?, clock: Clock = Clock()) throws(StoreError) {
        directory = nil
        isPersistent = true
        sqlite = nil
        self.clock = clock
        database = connection
        transactions = Transactions(database: connection, otherWriters: otherWriters)
        (recency, objects, entities, encryption, budget, caches) = Self.subsystems(database: connection, transactions: transactions, clock: clock)
        locks = LockTable(transactions: transactions, clock: clock)
        try transactions.startWatching()
    }

    /// The subsystems, each following the transactions from when it is
    /// made (`Transactions.observe`): recency first, as its rows go into
    /// the transaction before it commits; the loaded caches last.
    private static func subsystems(database: any SQLConnection, transactions: Transactions, clock: Clock)
        -> (RecencyLog, ObjectStore, EntityStore, StoreEncryption, StoreBudget, CacheRegistry) {
        let recency = RecencyLog(transactions: transactions)
        let objects = ObjectStore(database: database, transactions: transactions)
        let entities = EntityStore(database: database, transactions: transactions)
        let encryption = StoreEncryption(database: database, transactions: transactions)
        let budget = StoreBudget(transactions: transactions, recency: recency, clock: clock)
        let loaded = LoadedCaches()
        transactions.observe(loaded)
        let caches = CacheRegistry(context: CacheContext(database: database, transactions: transactions, clock: clock, recency: recency,
                                                         revisions: EntryRevisions(transactions: transactions), budget: budget, encryption: encryption, objects: objects, loaded: loaded))
        budget.caches = caches
        return (recency, objects, entities, encryption, budget, caches)
    }

    /// Where the store's data is, for messages: its directory, or its server.
    public var location: String { directory ?? database.location }

    private func configure(_ database: SQLiteDatabase) throws(StoreError) {
        // Another process may hold a write lock briefly; wait rather than fail.
        try database.execute(SQLiteDatabase.busyTimeout)
        if directory != nil {
            try enableWriteAheadLog(database)
            try database.execute(SQLiteDatabase.synchronous)
        }
        try StoreLayout.bringUpToDate(database)
        if directory != nil { try noteOpenedFiles() }
    }

    /// Switching to WAL needs a moment alone with the file; a second process
    /// opening the store at the same time gets SQLITE_BUSY, without the busy
    /// timeout applying, so try again for a while. A process that holds the
    /// store locked makes each try wait the whole busy timeout: the tries
    /// stop at the same deadline, not after a number of them.
    private func enableWriteAheadLog(_ database: SQLiteDatabase) throws(StoreError) {
        let deadline = MonotonicClock.milliseconds() + Int64(LockWait.milliseconds)
        while true {
            do {
                let mode = try database.prepared(SQLiteDatabase.writeAheadLog)
                defer { mode.reset() }
                _ = try mode.step()
                return
            } catch {
                guard case .storage(let code, _) = error, code & 0xFF == 5, MonotonicClock.milliseconds() < deadline else { throw error }
                usleep(10_000)
            }
        }
    }

    /// Writes wait for other processes' locks again, once per burst (see `Database.begin`).
    public func waitForLocksAgain() {
        database.waitForLocksAgain()
    }

    /// Commits anything pending and closes the database.
    public func close() {
        // The handle is gone after the first close: asking it anything again would touch freed memory.
        guard !database.isClosed else { return }
        if lost == nil {
            // Closing reports nothing: a commit that fails here takes back only
            // writes nobody was told were made, and recency is a hint.
            // Recency noted by reads is saved lazily; closing is the last chance.
            try? recency.write()
            // Leases the session holds go with it, rather than keep others waiting until they expire.
            try? locks.releaseHeld()
            try? commit()
            // Closing removes the log and the index by path: only while they are ours.
            try? checkInPlace()
        }
        transactions.stopWatching()
        database.close()
    }

    /// A store holds the app's data: its directory is its owner's alone
    /// (0700) and so are its files (0600), whatever the umask, and a store an
    /// earlier Larder left readable by others is made private when opened.
    /// A file or directory that cannot be changed (another user's) is left
    /// as it is, with a warning.
    static let directoryMode: mode_t = 0o700
    static let fileMode: mode_t = 0o600

    /// What opening the store could not do and the owner should hear of (logged by the caller).
    public private(set) var warnings: [String] = []

    private static func keepPrivate(_ paths: String...) -> [String] {
        var warnings: [String] = []
        for path in paths {
            var info = stat()
            guard stat(path, &info) == 0, info.st_mode & 0o777 != fileMode else { continue }
            if chmod(path, fileMode) != 0 {
                warnings.append("cannot make \(path) private (mode 600): \(String(cString: strerror(errno)))")
            }
        }
        return warnings
    }

    /// Creates the store's directory and those above it that are missing;
    /// returns warnings.
    private static func createDirectory(_ path: String) throws(StoreError) -> [String] {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += component + "/"
            if mkdir(prefix, directoryMode) != 0 && errno != EEXIST {
                throw .unavailable(path: path, reason: "cannot create \(prefix): \(String(cString: strerror(errno)))")
            }
        }
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw .unavailable(path: path, reason: "not a directory")
        }
        guard access(path, W_OK) == 0 else {
            throw .unavailable(path: path, reason: "not writable: \(String(cString: strerror(errno)))")
        }
        if info.st_mode & 0o777 != directoryMode && chmod(path, directoryMode) != 0 {
            return ["cannot make \(path) private (mode 700): \(String(cString: strerror(errno)))"]
        }
        return []
    }
}
