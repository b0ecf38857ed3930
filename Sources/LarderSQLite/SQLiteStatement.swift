import CSQLite
import LarderStorage

/// A prepared statement. Bind with 1-based indexes, step, read 0-based columns.
public final class SQLiteStatement: SQLStatement {
    private let raw: OpaquePointer
    private unowned let database: SQLiteDatabase

    // SQLITE_TRANSIENT is a macro Swift does not import: SQLite copies the bytes.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    init(_ raw: OpaquePointer, database: SQLiteDatabase) {
        self.raw = raw
        self.database = database
    }

    func finalize() { sqlite3_finalize(raw) }

    public func reset() {
        sqlite3_reset(raw)
        sqlite3_clear_bindings(raw)
    }

    @discardableResult
    public func bind(_ index: Int32, _ value: Int64) -> SQLiteStatement {
        sqlite3_bind_int64(raw, index, value)
        return self
    }

    @discardableResult
    public func bind(_ index: Int32, _ value: Int) -> SQLiteStatement { bind(index, Int64(value)) }

    @discardableResult
    public func bind(_ index: Int32, _ value: String) -> SQLiteStatement {
        var value = value
        return value.withUTF8 { bind(index, utf8: $0) }
    }

    @discardableResult
    public func bind(_ first: Int32, utf8 a: UnsafeBufferPointer<UInt8>, andNext b: UnsafeBufferPointer<UInt8>) -> SQLiteStatement {
        bind(first, utf8: a)
        return bind(first + 1, utf8: b)
    }

    @discardableResult
    public func bind(_ index: Int32, _ value: Double) -> SQLiteStatement {
        sqlite3_bind_double(raw, index, value)
        return self
    }

    /// Binds text given as its UTF-8 bytes.
    @discardableResult
    public func bind(_ index: Int32, utf8: UnsafeBufferPointer<UInt8>) -> SQLiteStatement {
        if let base = utf8.baseAddress, utf8.count > 0 {
            _ = base.withMemoryRebound(to: CChar.self, capacity: utf8.count) {
                sqlite3_bind_text(raw, index, $0, Int32(utf8.count), Self.transient)
            }
        } else {
            // A nil pointer would bind NULL; the empty string is not NULL.
            _ = sqlite3_bind_text(raw, index, "", 0, Self.transient)
        }
        return self
    }

    @discardableResult
    public func bind(_ index: Int32, blob: [UInt8]) -> SQLiteStatement {
        if blob.isEmpty {
            sqlite3_bind_zeroblob(raw, index, 0)
        } else {
            _ = blob.withUnsafeBytes { sqlite3_bind_blob(raw, index, $0.baseAddress, Int32($0.count), Self.transient) }
        }
        return self
    }

    /// Binds a blob that SQLite reads in place, without a copy of its own
    /// (SQLITE_STATIC): the bytes must stay valid until the statement has
    /// run, and the statement must be bound anew before each run. SQLite's
    /// copy would live on in the binding until the next one: a 60 MB value
    /// stored once kept 60 MB resident.
    @discardableResult
    public func bind(_ index: Int32, lentBlob blob: UnsafeBufferPointer<UInt8>) -> SQLiteStatement {
        if let base = blob.baseAddress, blob.count > 0 {
            sqlite3_bind_blob(raw, index, base, Int32(blob.count), nil)
        } else {
            sqlite3_bind_zeroblob(raw, index, 0)
        }
        return self
    }

    /// Binds zeros that SQLite does not make: in a row's last column, a
    /// record of any size costs only its header until the bytes are written
    /// over them in place (`SQLiteDatabase.writeBlob`).
    @discardableResult
    public func bind(_ index: Int32, zeroBlob count: Int) -> SQLiteStatement {
        sqlite3_bind_zeroblob64(raw, index, sqlite3_uint64(count))
        return self
    }

    @discardableResult
    public func bindNull(_ index: Int32) -> SQLiteStatement {
        sqlite3_bind_null(raw, index)
        return self
    }

    /// Advances: true when a row is available, false when done.
    public func step() throws(StoreError) -> Bool {
        #if DEBUG
        if let code = database.takeFault(String(cString: sqlite3_sql(raw))) {
            sqlite3_reset(raw)
            throw database.failure(code, String(cString: sqlite3_errstr(code)))
        }
        #endif
        let rc = sqlite3_step(raw)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        let message = database.errorMessage
        sqlite3_reset(raw)
        throw database.failure(rc, message)
    }

    /// Runs to completion, ignoring rows; resets for the next use.
    public func run() throws(StoreError) {
        defer { sqlite3_reset(raw) }
        while try step() {}
    }

    public func runPipelined(then: ((_ row: (any SQLStatement)?) throws(StoreError) -> Void)?) throws(StoreError) {
        guard let then else { return try run() }
        defer { sqlite3_reset(raw) }
        try then(try step() ? self : nil)
    }

    public func isNull(_ column: Int32) -> Bool { sqlite3_column_type(raw, column) == SQLITE_NULL }
    public func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(raw, column) }
    public func int(_ column: Int32) -> Int { Int(sqlite3_column_int64(raw, column)) }
    public func double(_ column: Int32) -> Double { sqlite3_column_double(raw, column) }

    public func string(_ column: Int32) -> String {
        guard let p = sqlite3_column_text(raw, column) else { return "" }
        let n = Int(sqlite3_column_bytes(raw, column))
        return String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
    }

    public func blob(_ column: Int32) -> [UInt8] {
        let n = Int(sqlite3_column_bytes(raw, column))
        guard n > 0, let p = sqlite3_column_blob(raw, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: p, count: n))
    }
}
