/// The storage seam: all the core asks of a database. Caches, objects,
/// migrations and entities are written once against it; SQLite
/// (`SQLiteDatabase`, the embedded default) and PostgreSQL (in
/// `LarderPostgreSQL`) are behind it.
///
/// Statements are written once, with `?` or `?N` placeholders, prepared on
/// first use and kept; `SQLDialect` spells the little that the engines write
/// differently. A parameter that may be NULL is compared before it is
/// tested with IS NULL (`grp = ?2 OR ?2 IS NULL`): PostgreSQL settles a
/// parameter's type where it is first used. Transactions are the
/// connection's: one write transaction at a time (group commit), savepoints
/// inside it by name.
///
/// The core holds a connection as `any SQLConnection`, and its statements as
/// `any SQLStatement`: a call through the protocol's witness table instead
/// of a direct one, which costs a set to disk 2.6% of its instructions and a
/// disk hit 1.1% (see `SQLiteDatabase`).
public protocol SQLConnection: AnyObject {
    var dialect: SQLDialect { get }
    /// Where the data is, for messages: a database file's path, or a server and schema.
    var location: String { get }

    /// The statement for `sql`, prepared on first use and kept; reset, with no values bound.
    func statement(_ sql: String) throws(StoreError) -> any SQLStatement
    /// A statement run on every read or write of a kind (the caller numbers
    /// them from 0, densely), kept by `number` rather than found by its
    /// text: hashing and comparing the text cost about as much as binding
    /// it. `sql` gives the text the first time; prepared and kept, reset.
    func statement(number: Int, sql: () -> String) throws(StoreError) -> any SQLStatement
    /// Runs one or more statements that take no parameters and return no rows.
    func execute(_ sql: String) throws(StoreError)
    /// Rows changed by the last statement run.
    var changes: Int { get }
    /// The id of the row the last insert made (`SQLDialect.insertReturnsRowID` false only).
    var lastInsertRowID: Int64 { get }

    // MARK: The write transaction

    /// Whether a write transaction is open.
    var isInTransaction: Bool { get }
    /// Opens the write transaction.
    func begin() throws(StoreError)
    /// Commits it; a transaction doomed by an error fails with that error, untried.
    func commit() throws(StoreError)
    /// Ends it, undoing whatever the database has not undone already.
    func rollback()
    /// The first error reported while the write transaction was open: after
    /// it, the transaction can only be rolled back.
    var transactionFailure: StoreError? { get }
    /// How many errors so far undid only the statement that failed and left
    /// the write transaction open (a broken constraint, a value too long),
    /// and the last of them: such an error dooms nothing by itself, and the
    /// caller decides what else of its work must go (`Transactions.requestFailed`).
    var statementFailures: Int { get }
    var lastStatementFailure: StoreError? { get }
    /// Rows changed by every statement this connection ran so far (SQLite's
    /// total_changes), undone or not.
    var rowsChanged: Int64 { get }
    /// Writes wait for other writers' locks again (once per burst of input).
    func waitForLocksAgain()
    /// Marks a point of the write transaction that `rollback(toSavepoint:)`
    /// can go back to; savepoints nest, by name. PostgreSQL queues it with
    /// the writes that follow (`SQLStatement.runPipelined`), so that a batch
    /// under one is sent whole.
    func savepoint(_ name: String) throws(StoreError)
    /// Keeps what was done since the savepoint `name`, and forgets the savepoint.
    func release(savepoint name: String) throws(StoreError)
    /// Undoes what was done since the savepoint `name`, and forgets it. A
    /// failure to do so is the transaction's (`transactionFailure`): it is
    /// then rolled back whole.
    func rollback(toSavepoint name: String)
    /// Runs now whatever `SQLStatement.runPipelined` queued (SQLite queues
    /// nothing): before a decision taken from what those statements will
    /// answer, such as a cache's totals against its limits.
    func settle() throws(StoreError)

    var isClosed: Bool { get }
    func close()

    // MARK: Large values in place

    /// Whether a row's bytes can be written and read where they lie, in
    /// pieces (SQLite's incremental blob I/O): a large value is then stored
    /// as zeros of its size and its bytes copied over them, and read
    /// straight into what needs it, rather than through one more whole copy.
    var movesBlobsInPlace: Bool { get }
    /// Copies `bytes` over the start of the bytes of `column` in row `row`
    /// of `table`, which must hold at least as many.
    func writeBlob(table: String, column: String, row: Int64, from bytes: UnsafeBufferPointer<UInt8>) throws(StoreError)
    /// The bytes of `column` in row `row` of `table`, for reading in pieces.
    func openBlob(table: String, column: String, row: Int64) throws(StoreError) -> BlobReader
}

/// A value read where it lies, piece by piece (`SQLConnection.openBlob`).
/// Only what the database holds of it is in memory until a piece is read;
/// it reads the value as it was when opened, and is closed when released.
/// The connection must not change the row while it is open.
public protocol BlobReader: AnyObject {
    var count: Int { get }
    /// Hands `body` the bytes in pieces of `piece` bytes (the last shorter), in order.
    func read(inPiecesOf piece: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Void) throws(StoreError)
}

extension BlobReader {
    /// The whole value, in one array.
    public func readAll() throws(StoreError) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        try read(inPiecesOf: 1 << 20) { bytes.append(contentsOf: $0) }
        return bytes
    }
}

/// A prepared statement: parameters bound from 1, columns read from 0.
public protocol SQLStatement: AnyObject {
    @discardableResult func bind(_ index: Int32, _ value: Int64) -> Self
    @discardableResult func bind(_ index: Int32, _ value: Double) -> Self
    /// Text given as its UTF-8 bytes.
    @discardableResult func bind(_ index: Int32, utf8: UnsafeBufferPointer<UInt8>) -> Self
    @discardableResult func bind(_ index: Int32, blob: [UInt8]) -> Self
    /// Bytes read where they are, if the engine can (SQLite): they must stay
    /// valid until the statement has run, and it must be bound anew before
    /// each run.
    @discardableResult func bind(_ index: Int32, lentBlob: UnsafeBufferPointer<UInt8>) -> Self
    /// `count` zero bytes, to be written over in place (`SQLConnection.writeBlob`).
    @discardableResult func bind(_ index: Int32, zeroBlob count: Int) -> Self
    @discardableResult func bindNull(_ index: Int32) -> Self
    // These four have default implementations below, in terms of those
    // above; SQLite's statement has its own, which spare a disk hit a call
    // through the witness table and a generic trampoline apiece.
    @discardableResult func bind(_ index: Int32, _ value: Int) -> Self
    @discardableResult func bind(_ index: Int32, _ value: String) -> Self
    /// Binds two texts, given as their UTF-8 bytes, at `first` and the parameter after.
    @discardableResult func bind(_ first: Int32, utf8 a: UnsafeBufferPointer<UInt8>, andNext b: UnsafeBufferPointer<UInt8>) -> Self
    func int(_ column: Int32) throws(StoreError) -> Int
    /// Runs the statement the first time, then moves to its next row; false when there is none.
    func step() throws(StoreError) -> Bool
    /// Runs a statement to its end, ignoring rows; resets it for the next use.
    func run() throws(StoreError)
    /// Ready to run again; the values bound are cleared.
    func reset()
    /// Runs a statement of the write transaction whose answer can wait:
    /// SQLite runs it now; PostgreSQL queues it, to be sent with the next
    /// statement whose answer is needed at once, or with the COMMIT, all
    /// in one network round trip (libpq's pipeline mode). `then` gets the
    /// statement on its first row (nil if it returned none) once it has
    /// run; if the transaction fails first, never. A failure of a queued
    /// statement, or of `then` reading its answer, dooms the transaction,
    /// and is thrown by whatever sends it.
    /// Outside a write transaction the statement runs now on either engine.
    func runPipelined(then: ((_ row: (any SQLStatement)?) throws(StoreError) -> Void)?) throws(StoreError)
    // A column read as another type than it holds reads as SQLite makes
    // it (NULL as 0, "" or no bytes); a value the engine cannot decode as
    // the type asked (PostgreSQL's answer in an unexpected format or type)
    // is an error, never a 0 that would be taken for data.
    func isNull(_ column: Int32) -> Bool
    func int64(_ column: Int32) throws(StoreError) -> Int64
    func double(_ column: Int32) throws(StoreError) -> Double
    func string(_ column: Int32) throws(StoreError) -> String
    func blob(_ column: Int32) throws(StoreError) -> [UInt8]
}

extension SQLStatement {
    @discardableResult
    public func bind(_ index: Int32, _ value: Int) -> Self { bind(index, Int64(value)) }

    @discardableResult
    public func bind(_ index: Int32, _ value: String) -> Self {
        var value = value
        return value.withUTF8 { bind(index, utf8: $0) }
    }

    @discardableResult
    public func bind(_ first: Int32, utf8 a: UnsafeBufferPointer<UInt8>, andNext b: UnsafeBufferPointer<UInt8>) -> Self {
        bind(first, utf8: a)
        return bind(first + 1, utf8: b)
    }

    public func int(_ column: Int32) throws(StoreError) -> Int { Int(try int64(column)) }

    @discardableResult
    public func bind(_ index: Int32, zeroBlob count: Int) -> Self { bind(index, blob: [UInt8](repeating: 0, count: count)) }
}

extension SQLConnection {
    /// An engine on which any failed statement dooms the write transaction
    /// (PostgreSQL aborts it) reports no statement failure apart, and so
    /// needs no count of rows changed either.
    public var statementFailures: Int { 0 }
    public var lastStatementFailure: StoreError? { nil }
    public var rowsChanged: Int64 { 0 }

    /// An engine that cannot move a value in place takes and gives it whole.
    public var movesBlobsInPlace: Bool { false }
    public func writeBlob(table: String, column: String, row: Int64, from bytes: UnsafeBufferPointer<UInt8>) throws(StoreError) {
        throw .internalFailure("\(dialect.engine) does not write a value in place")
    }
    public func openBlob(table: String, column: String, row: Int64) throws(StoreError) -> BlobReader {
        throw .internalFailure("\(dialect.engine) does not read a value in place")
    }

    /// A single integer from a query (0 when it returns no row).
    public func integer(_ sql: String) throws(StoreError) -> Int64 {
        let s = try statement(sql)
        defer { s.reset() }
        guard try s.step() else { return 0 }
        return try s.int64(0)
    }
}

/// What SQLite and PostgreSQL write differently, in the statements Larder
/// runs. One byte: the hot path asks it once per write.
public struct SQLDialect: Sendable, Equatable {
    public enum Engine: Sendable {
        case sqlite, postgreSQL
    }

    public let engine: Engine

    public static let sqlite = SQLDialect(engine: .sqlite)
    public static let postgreSQL = SQLDialect(engine: .postgreSQL)

    /// The type of a column of bytes.
    public var bytes: String { engine == .sqlite ? "BLOB" : "bytea" }
    /// A table's own integer key, given by the database.
    public var rowKey: String { engine == .sqlite ? "INTEGER PRIMARY KEY" : "bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY" }
    /// Column types by the storage class SQLite names them with.
    public var integer: String { engine == .sqlite ? "INTEGER" : "bigint" }
    public var real: String { engine == .sqlite ? "REAL" : "double precision" }
    /// Text, ordered by its bytes (SQLite's binary collation; PostgreSQL's "C").
    public var text: String { engine == .sqlite ? "TEXT" : "text COLLATE \"C\"" }
    /// Whether an insert that must give its new row's id says so with
    /// `RETURNING id` (PostgreSQL), or the connection remembers it
    /// (`SQLConnection.lastInsertRowID`, SQLite: RETURNING costs it a
    /// temporary table).
    public var insertReturnsRowID: Bool { engine == .postgreSQL }
    /// The options after a table's definition: SQLite's STRICT, which keeps
    /// each column to its type, as PostgreSQL always does.
    public var strictTable: String { engine == .sqlite ? "STRICT" : "" }
    /// ... and, for a table keyed by something else than an integer, stored
    /// in the order of that key (SQLite's WITHOUT ROWID; PostgreSQL's tables
    /// are heaps, its primary key an index).
    public var clusteredTable: String { engine == .sqlite ? "STRICT, WITHOUT ROWID" : "" }
    /// A match of a column against a bound pattern: `%` and `_` as
    /// wildcards, no escape character, the case of ASCII letters (only)
    /// ignored, as SQLite's LIKE does. PostgreSQL's ILIKE folds only ASCII
    /// under collation "C", and escapes with a backslash unless told otherwise.
    public var likePattern: String { engine == .sqlite ? "LIKE ?" : "ILIKE ? ESCAPE ''" }
    /// Whether writes whose answers can wait are queued and sent together
    /// (`SQLStatement.runPipelined`): on PostgreSQL each statement waited
    /// for alone costs a network round trip, on SQLite a function call.
    public var pipelinesWrites: Bool { engine == .postgreSQL }
    /// The longest name of a table, column or index, in bytes: PostgreSQL
    /// cuts longer ones short (and two names alike in their first 63 bytes
    /// would be one); SQLite takes any.
    public var maxIdentifierBytes: Int? { engine == .sqlite ? nil : 63 }

    /// `name` as an identifier, on either engine: in double quotes, any
    /// inside doubled, so that a name given by a user is always one identifier.
    public static func quoted(_ name: String) -> String {
        var quoted = "\""
        for c in name { quoted += c == "\"" ? "\"\"" : String(c) }
        return quoted + "\""
    }
}
