import CSQLite
import LarderCore
import LarderSQLite

/// The few SQLite calls the storage floor needs, with errors fatal.
final class SQLiteConnection {
    let handle: OpaquePointer
    private var statements: [OpaquePointer] = []

    /// SQLITE_TRANSIENT (not imported): SQLite copies bound bytes, as Larder asks it to.
    static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    init(path: String) {
        // The library set up as Larder sets it up.
        SQLiteLibrary.configure()
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        guard sqlite3_open_v2(path, &db, flags, nil) == SQLITE_OK, let db else {
            Progress.fail("cannot open \(path) with SQLite")
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
    }

    func execute(_ sql: String) {
        var error: UnsafeMutablePointer<CChar>?
        if sqlite3_exec(handle, sql, nil, nil, &error) != SQLITE_OK {
            let message = error.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(error)
            Progress.fail("SQLite: \(message) in: \(sql.prefix(200))")
        }
    }

    /// A statement prepared once (persistent), finalized on close.
    func prepare(_ sql: String) -> OpaquePointer {
        var s: OpaquePointer?
        guard sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &s, nil) == SQLITE_OK, let s else {
            Progress.fail("SQLite: \(String(cString: sqlite3_errmsg(handle))) in: \(sql.prefix(200))")
        }
        statements.append(s)
        return s
    }

    /// Steps to completion, then resets (and clears bindings, as Larder's Statement.reset does).
    @inline(__always)
    func run(_ s: OpaquePointer) {
        var rc = sqlite3_step(s)
        while rc == SQLITE_ROW { rc = sqlite3_step(s) }
        if rc != SQLITE_DONE { Progress.fail("SQLite step failed: \(String(cString: sqlite3_errmsg(handle)))") }
        sqlite3_reset(s)
        sqlite3_clear_bindings(s)
    }

    func close() {
        for s in statements { sqlite3_finalize(s) }
        statements = []
        sqlite3_close_v2(handle)
    }
}
