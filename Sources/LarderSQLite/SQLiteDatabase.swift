import CSQLite
import LarderStorage

/// A SQLite connection with a cache of prepared statements: the embedded
/// store behind the storage seam (`SQLConnection`).
///
/// Statements are prepared once per SQL text with `SQLITE_PREPARE_PERSISTENT`
/// and reused; that is most of the difference between SQLite at 50k and at
/// 250k operations a second.
///
/// The core calls it through `SQLConnection` and its statements through
/// `SQLStatement`, by witness table rather than directly. Measured with
/// callgrind on release builds, per request, before and after: a memory hit
/// 3,162 → 3,118 instructions (it runs no statement), a disk hit 18,481 →
/// 18,677 (+1.1%), a set to disk 23,873 → 24,483 (+2.6%). The statement's
/// own `bind` of an Int, a String and a key spare it a generic trampoline
/// apiece (see `SQLStatement`).
public final class SQLiteDatabase: SQLConnection {
    let handle: OpaquePointer
    private var statements: [SQLText: SQLiteStatement] = [:]
    /// Statements kept by number (`statement(number:sql:)`), once prepared (they are in `statements` too).
    private var hot: [SQLiteStatement?] = []
    private var dataVersionStatement: SQLiteStatement?
    public let path: String

    /// Opens (creating if needed) the database at `path`; ":memory:" for a private in-memory one.
    public init(path: String) throws(StoreError) {
        SQLiteLibrary.configure()
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let db { sqlite3_close_v2(db) }
            throw .unavailable(path: path, reason: message)
        }
        self.handle = db
        self.path = path
        sqlite3_extended_result_codes(db, 1)
    }

    deinit { close() }

    public private(set) var isClosed = false

    public var dialect: SQLDialect { .sqlite }
    public var location: String { path }

    public func close() {
        guard !isClosed else { return }
        isClosed = true
        for s in statements.values { s.finalize() }
        statements = [:]
        hot = []
        sqlite3_close_v2(handle)
    }

    var errorMessage: String { String(cString: sqlite3_errmsg(handle)) }

    /// Runs SQL text that returns no rows (may hold several statements).
    public func execute(_ sql: String) throws(StoreError) {
        #if DEBUG
        if let code = takeFault(sql) { throw failure(code, String(cString: sqlite3_errstr(code))) }
        #endif
        var error: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &error)
        if rc != SQLITE_OK {
            let message = error.map { String(cString: $0) } ?? errorMessage
            sqlite3_free(error)
            throw failure(rc, message)
        }
    }

    // MARK: - The write transaction

    /// Whether the write transaction `begin` opened is still to be committed
    /// or rolled back, even if SQLite already rolled it back by itself after
    /// an error (then `isInTransaction` says no).
    private var writing = false
    /// The first error SQLite reported while the write transaction was open.
    /// After some errors (a full disk, an I/O error) SQLite undoes only the
    /// failed statement, after others the whole transaction, and the caller
    /// cannot tell which: writes answered as made may be gone, so the
    /// transaction can no longer be committed, only rolled back.
    public private(set) var transactionFailure: StoreError?

    public private(set) var statementFailures = 0
    public private(set) var lastStatementFailure: StoreError?

    /// An error SQLite reported; while the write transaction is open, the
    /// first one is kept, and dooms it — unless SQLite undid the failed
    /// statement alone and kept the transaction open, as it does when a
    /// statement breaks a constraint or binds a value too long: what other
    /// requests of the burst wrote is still there, and can still commit.
    func failure(_ code: Int32, _ message: String) -> StoreError {
        let error = StoreError.storage(code: code, message: message)
        guard writing else { return error }
        if Self.undoesOnlyItself(code) && isInTransaction {
            statementFailures += 1
            lastStatementFailure = error
        } else if transactionFailure == nil {
            transactionFailure = error
        }
        return error
    }

    /// The errors after which SQLite has undone the statement that failed
    /// and nothing before it (https://sqlite.org/lang_transaction.html: only
    /// SQLITE_FULL, SQLITE_IOERR, SQLITE_BUSY and SQLITE_NOMEM may roll back
    /// the whole transaction); SQLite's own check that the transaction is
    /// still open is made as well.
    static func undoesOnlyItself(_ code: Int32) -> Bool {
        switch code & 0xFF {
        case SQLITE_ERROR, SQLITE_TOOBIG, SQLITE_CONSTRAINT, SQLITE_MISMATCH, SQLITE_RANGE: true
        default: false
        }
    }

    public var rowsChanged: Int64 { sqlite3_total_changes64(handle) }

    /// Set when a wait for another process's write lock ran out: the store
    /// stayed locked for the whole busy timeout. Until `waitForLocksAgain`,
    /// taking the lock is tried once without waiting, so that a burst of
    /// writes waits once, not once per write.
    private var lockWaitRanOut = false

    /// Opens the write transaction, taking the write lock at once (waiting
    /// for another process's up to the busy timeout, unless a wait already ran out).
    public func begin() throws(StoreError) {
        do {
            try execute("BEGIN IMMEDIATE")
        } catch {
            if case .storage(let code, _) = error, code & 0xFF == SQLITE_BUSY, !lockWaitRanOut {
                lockWaitRanOut = true
                sqlite3_busy_timeout(handle, 0)
            }
            throw error
        }
        writing = true
    }

    /// Waits for other processes' locks again, up to the busy timeout.
    public func waitForLocksAgain() {
        guard lockWaitRanOut else { return }
        lockWaitRanOut = false
        sqlite3_busy_timeout(handle, LockWait.milliseconds)
    }

    /// SQLite runs every statement when asked: nothing is ever queued.
    public func settle() {}

    /// Commits the write transaction; a doomed one fails with its first error, untried.
    public func commit() throws(StoreError) {
        if let transactionFailure { throw transactionFailure }
        try execute("COMMIT")
        writing = false
    }

    /// Ends the write transaction, undoing whatever SQLite has not undone already.
    public func rollback() {
        if isInTransaction { sqlite3_exec(handle, "ROLLBACK", nil, nil, nil) }
        // Should even that fail, the transaction stays doomed, and the next commit rolls back again.
        guard !isInTransaction else { return }
        writing = false
        transactionFailure = nil
    }

    public func savepoint(_ name: String) throws(StoreError) { try execute("SAVEPOINT \(name)") }
    public func release(savepoint name: String) throws(StoreError) { try execute("RELEASE \(name)") }
    public func rollback(toSavepoint name: String) {
        try? execute("ROLLBACK TO \(name)")
        try? execute("RELEASE \(name)")
    }

    public func statement(_ sql: String) throws(StoreError) -> any SQLStatement { try prepared(sql) }
    public func statement(number: Int, sql: () -> String) throws(StoreError) -> any SQLStatement {
        if number < hot.count, let s = hot[number] {
            s.reset()
            return s
        }
        let s = try prepared(sql())
        if number >= hot.count { hot += repeatElement(nil, count: number + 1 - hot.count) }
        hot[number] = s
        return s
    }

    /// A cached prepared statement for `sql`, reset and with bindings cleared.
    public func prepared(_ sql: String) throws(StoreError) -> SQLiteStatement {
        if let s = statements[SQLText(sql)] {
            s.reset()
            return s
        }
        var raw: OpaquePointer?
        let rc = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &raw, nil)
        guard rc == SQLITE_OK, let raw else { throw .storage(code: rc, message: "\(errorMessage) in: \(sql)") }
        let s = SQLiteStatement(raw, database: self)
        statements[SQLText(sql)] = s
        return s
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    public var changes: Int { Int(sqlite3_changes(handle)) }

    /// The row id of the last successful INSERT.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    // MARK: Large values in place

    public var movesBlobsInPlace: Bool { true }

    public func writeBlob(table: String, column: String, row: Int64, from bytes: UnsafeBufferPointer<UInt8>) throws(StoreError) {
        let blob = try open(table: table, column: column, row: row, writable: true)
        defer { sqlite3_blob_close(blob) }
        var offset = 0
        while offset < bytes.count {
            // sqlite3_blob_write takes an Int32 count.
            let n = min(bytes.count - offset, 1 << 30)
            let rc = sqlite3_blob_write(blob, bytes.baseAddress! + offset, Int32(n), Int32(offset))
            // The row was made to be written over: any failure leaves it
            // holding zeros, which must never commit.
            guard rc == SQLITE_OK else { throw dooming(failure(rc, errorMessage)) }
            offset += n
        }
    }

    public func openBlob(table: String, column: String, row: Int64) throws(StoreError) -> BlobReader {
        SQLiteBlobReader(try open(table: table, column: column, row: row, writable: false), database: self)
    }

    private func open(table: String, column: String, row: Int64, writable: Bool) throws(StoreError) -> OpaquePointer {
        var blob: OpaquePointer?
        let rc = sqlite3_blob_open(handle, "main", table, column, row, writable ? 1 : 0, &blob)
        guard rc == SQLITE_OK, let blob else {
            if let blob { sqlite3_blob_close(blob) }
            let error = failure(rc, errorMessage)
            throw writable ? dooming(error) : error
        }
        return blob
    }

    /// `error`, having doomed the write transaction if one is open.
    private func dooming(_ error: StoreError) -> StoreError {
        if writing && transactionFailure == nil { transactionFailure = error }
        return error
    }

    /// Makes every COMMIT fail (SQLite turns it into a rollback), so that the
    /// paths taken when a commit fails — a full disk, an I/O error — can be tested.
    package func refuseCommits(_ refuse: Bool) {
        if refuse {
            sqlite3_commit_hook(handle, { _ in 1 }, nil)
        } else {
            sqlite3_commit_hook(handle, nil, nil)
        }
    }

    #if DEBUG
    /// A failure a test arranged with `injectFault`.
    private struct Fault {
        var remaining: Int
        let code: Int32
        let sqlPrefix: String
        let rollsBack: Bool
    }
    private var fault: Fault?

    /// Makes the `nth` step or execute from now whose SQL starts with
    /// `sqlPrefix` fail with `code` (say SQLITE_IOERR or SQLITE_FULL) instead
    /// of running, as when the disk fails or fills; with `rollsBack`, SQLite
    /// is also made to roll the whole transaction back, as it may after such
    /// errors. Debug builds only: release builds have no hook at all. The
    /// fault fires once; tests that may not reach it call `removeFault`.
    package func injectFault(_ code: Int32, nth: Int = 1, sqlPrefix: String = "", rollsBack: Bool = false) {
        fault = Fault(remaining: nth, code: code, sqlPrefix: sqlPrefix, rollsBack: rollsBack)
    }

    package func removeFault() { fault = nil }

    /// The code to fail with if the arranged fault falls on this call.
    func takeFault(_ sql: @autoclosure () -> String) -> Int32? {
        guard var f = fault, sql().hasPrefix(f.sqlPrefix) else { return nil }
        f.remaining -= 1
        guard f.remaining == 0 else {
            fault = f
            return nil
        }
        fault = nil
        if f.rollsBack && isInTransaction { sqlite3_exec(handle, "ROLLBACK", nil, nil, nil) }
        return f.code
    }
    #endif

    /// Changes whenever another connection commits to the database, and not
    /// for this connection's own commits (SQLITE_FCNTL_DATA_VERSION counts
    /// those too, so it cannot serve). Its statement is kept at hand: this runs
    /// once per burst of input.
    public func dataVersion() throws(StoreError) -> Int64 {
        if dataVersionStatement == nil { dataVersionStatement = try prepared("PRAGMA data_version") }
        let s = dataVersionStatement!
        defer { s.reset() }
        guard try s.step() else { return 0 }
        return s.int64(0)
    }

    /// Whether the path no longer names the file SQLite opened (SQLite's unix
    /// VFS compares inode numbers; other VFSes never say so).
    package var hasMoved: Bool {
        var moved: Int32 = 0
        sqlite3_file_control(handle, "main", SQLITE_FCNTL_HAS_MOVED, &moved)
        return moved != 0
    }

    /// Makes closing leave the write-ahead log and the WAL index where they
    /// are: SQLite deletes them by path, and the path may name other files now.
    package func keepLogOnClose() {
        var keep: Int32 = 1
        sqlite3_file_control(handle, "main", SQLITE_FCNTL_PERSIST_WAL, &keep)
    }
}

/// SQL text as the statement cache's key. Hashing the whole text (hundreds of
/// bytes) cost more than running a cached INSERT's bindings; the length and
/// the last bytes tell the texts in use apart as well, and equality still
/// compares all of it (at once when both are the same constant).
private struct SQLText: Hashable {
    let text: String
    init(_ text: String) { self.text = text }

    func hash(into hasher: inout Hasher) {
        var text = text
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: $0.suffix(32)))) }
        hasher.combine(text.utf8.count)
    }
}

/// A value read in place (`SQLiteDatabase.openBlob`): SQLite's incremental
/// blob I/O, which copies from the database's pages only the piece asked for.
final class SQLiteBlobReader: BlobReader {
    private let blob: OpaquePointer
    private unowned let database: SQLiteDatabase
    let count: Int

    init(_ blob: OpaquePointer, database: SQLiteDatabase) {
        self.blob = blob
        self.database = database
        count = Int(sqlite3_blob_bytes(blob))
    }

    deinit { sqlite3_blob_close(blob) }

    func read(inPiecesOf piece: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Void) throws(StoreError) {
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: min(piece, max(count, 1)))
        defer { buffer.deallocate() }
        var offset = 0
        while offset < count {
            let n = min(count - offset, piece)
            let rc = sqlite3_blob_read(blob, buffer, Int32(n), Int32(offset))
            guard rc == SQLITE_OK else { throw database.failure(rc, database.errorMessage) }
            body(UnsafeBufferPointer(start: buffer, count: n))
            offset += n
        }
    }
}

extension SQLiteDatabase {
    /// Connection settings of a store on disk. WAL with synchronous=NORMAL: a
    /// commit survives the process being killed; only a power cut can lose the
    /// last transactions.
    public static let busyTimeout = "PRAGMA busy_timeout = \(LockWait.milliseconds)"
    public static let writeAheadLog = "PRAGMA journal_mode = WAL"
    public static let synchronous = "PRAGMA synchronous = NORMAL"
}
