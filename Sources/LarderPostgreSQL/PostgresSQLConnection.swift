import LarderStorage

/// A PostgreSQL connection behind the storage seam (`SQLConnection`): the
/// core's statements, written with SQLite's `?` and `?N` placeholders, run
/// here as PostgreSQL's `$N`, each prepared by name on first use (and again
/// on each new session after a reconnection).
public final class PostgresSQLConnection: SQLConnection {
    public let connection: PostgresConnection
    public let location: String
    private var statements: [String: PostgresSQLStatement] = [:]
    private var hot: [PostgresSQLStatement?] = []
    public private(set) var changes = 0
    public private(set) var transactionFailure: StoreError?
    public private(set) var isClosed = false

    /// The advisory lock every write transaction takes first, if any.
    private let writerLock: Int64?

    /// Statements of the write transaction whose answers can wait
    /// (`SQLStatement.runPipelined`), in order, to be sent together.
    private var queued: [Queued] = []

    private struct Queued {
        enum Step {
            case prepared(PostgresStatement, [PostgresValue])
            case sql(String)
        }
        let step: Step
        let reader: (statement: PostgresSQLStatement, then: ((any SQLStatement)?) throws(StoreError) -> Void)?

        func add(to pipeline: inout PostgresPipeline) {
            switch step {
            case .prepared(let statement, let parameters): pipeline.append(statement, parameters)
            case .sql(let sql): pipeline.append(sql: sql)
            }
        }
    }

    /// Whether statements wait in the queue.
    var hasQueued: Bool { !queued.isEmpty }

    /// A query run in BEGIN's round trip, after the writer lock is taken
    /// (`PostgresOtherWriters` reads the commits count there); its answer
    /// waits in `readAtBegin` until taken.
    var queryAtBegin: String?
    private var readAtBegin: PostgresResult?

    /// `location` names the server and schema in messages; with
    /// `writerLock`, write transactions take that advisory lock as they
    /// begin, and so run one at a time (see `PostgresStore`).
    public init(_ connection: PostgresConnection, location: String, writerLock: Int64? = nil) {
        self.connection = connection
        self.location = location
        self.writerLock = writerLock
    }

    public var dialect: SQLDialect { .postgreSQL }

    /// Never asked: PostgreSQL's inserts say their row's id with RETURNING.
    public var lastInsertRowID: Int64 { 0 }

    public func statement(_ sql: String) throws(StoreError) -> any SQLStatement { prepared(sql) }

    public func statement(number: Int, sql: () -> String) throws(StoreError) -> any SQLStatement {
        if number < hot.count, let s = hot[number] {
            s.reset()
            return s
        }
        let s = prepared(sql())
        if number >= hot.count { hot += repeatElement(nil, count: number + 1 - hot.count) }
        hot[number] = s
        return s
    }

    func prepared(_ sql: String) -> PostgresSQLStatement {
        if let s = statements[sql] {
            s.reset()
            return s
        }
        let (numbered, used) = Self.numberedPlaceholders(sql)
        let s = PostgresSQLStatement(sql: numbered, used: used, name: "larder_\(statements.count + 1)", owner: self)
        statements[sql] = s
        return s
    }

    public func execute(_ sql: String) throws(StoreError) {
        try settle()
        do {
            changes = try connection.execute(sql).rowsAffected
        } catch {
            throw failure(error)
        }
    }

    // A savepoint's begin, release or rollback takes its place in the queue:
    // a batch of writes under one (`cache.setMany`) is sent whole.
    public func savepoint(_ name: String) throws(StoreError) { try queue("SAVEPOINT \(name)") }
    public func release(savepoint name: String) throws(StoreError) { try queue("RELEASE \(name)") }
    public func rollback(toSavepoint name: String) {
        // A failure dooms the transaction (`failure`), which is what the caller is told by its commit.
        try? queue("ROLLBACK TO \(name)")
        try? queue("RELEASE \(name)")
    }

    /// Queues `sql`, one statement, in the write transaction; outside one, runs it now.
    private func queue(_ sql: String) throws(StoreError) {
        guard isInTransaction else { return try execute(sql) }
        queued.append(Queued(step: .sql(sql), reader: nil))
    }

    // MARK: - Queued statements

    /// Queues a run of `statement`, prepared, with `parameters`; `reader`
    /// reads its answer once it has run.
    func enqueue(_ statement: PostgresStatement, _ parameters: [PostgresValue],
                 reader: (statement: PostgresSQLStatement, then: ((any SQLStatement)?) throws(StoreError) -> Void)?) {
        queued.append(Queued(step: .prepared(statement, parameters), reader: reader))
    }

    public func settle() throws(StoreError) {
        guard !queued.isEmpty else { return }
        _ = try send(then: nil)
    }

    /// Sends the queued statements, and `last` after them, in one round
    /// trip inside the write transaction, ending it with COMMIT if
    /// `committing`; hands each reader its answer, and returns `last`'s. The
    /// first failure dooms the transaction (or, committing, ends it) and is thrown.
    func send(then last: (statement: PostgresStatement, parameters: [PostgresValue])?,
              committing: Bool = false) throws(StoreError) -> PostgresResult? {
        var pipeline = PostgresPipeline()
        for q in queued { q.add(to: &pipeline) }
        if let last { pipeline.append(last.statement, last.parameters) }
        let sent = queued
        queued.removeAll(keepingCapacity: true)
        let result: PostgresPipelineResult
        do { result = try connection.run(pipeline, committing: committing) } catch { throw failure(error) }
        if let error = result.failure { throw failure(error) }
        try deliver(result, to: sent)
        guard last != nil, case .done(let r) = result[result.count - 1] else { return nil }
        changes = r.rowsAffected
        return r
    }

    /// Hands every reader its answer, even after one failed to read it, so
    /// that what the others keep stays right; the first failure is thrown
    /// and dooms the transaction. (Committing, the transaction is over:
    /// the caller is told of the failure, and reads the store again.)
    private func deliver(_ result: PostgresPipelineResult, to sent: [Queued]) throws(StoreError) {
        var first: StoreError?
        for (i, q) in sent.enumerated() {
            guard let reader = q.reader, case .done(let r) = result[i] else { continue }
            do { try reader.statement.deliver(r, to: reader.then) } catch { first = first ?? error }
        }
        if let first { throw failure(first) }
    }

    // MARK: - The write transaction

    public var isInTransaction: Bool { connection.inTransaction }

    public func begin() throws(StoreError) {
        let lock = writerLock.map { "SELECT pg_advisory_xact_lock(\($0))" }
        let first = [lock, queryAtBegin].compactMap { $0 }
        let result = try connection.begin(then: first.isEmpty ? nil : first.joined(separator: "; "))
        readAtBegin = queryAtBegin == nil ? nil : result
    }

    /// What `queryAtBegin` answered as the open transaction began; nil once taken.
    func takeReadAtBegin() -> PostgresResult? {
        defer { readAtBegin = nil }
        return readAtBegin
    }

    /// The queued statements and the COMMIT go in one round trip.
    public func commit() throws(StoreError) {
        if let transactionFailure {
            rollback()
            throw transactionFailure
        }
        readAtBegin = nil
        guard !queued.isEmpty else { return try connection.commit() }
        _ = try send(then: nil, committing: true)
    }

    public func rollback() {
        queued.removeAll()
        readAtBegin = nil
        connection.rollBack()
        transactionFailure = nil
    }

    /// PostgreSQL's writers wait for each other's row locks by themselves.
    public func waitForLocksAgain() {}

    /// An error the server reported; the first one while the write
    /// transaction is open dooms it (PostgreSQL has aborted it).
    func failure(_ error: StoreError) -> StoreError {
        if isInTransaction && transactionFailure == nil { transactionFailure = error }
        return error
    }

    func noteChanges(_ n: Int) { changes = n }

    public func close() {
        isClosed = true
        connection.close()
    }

    /// `sql` with each `?N` as `$N` and each bare `?` as the next number
    /// (one more than the largest so far, as SQLite numbers them); text in
    /// single quotes and identifiers in double quotes are left alone. And
    /// the numbers used: a statement may skip one (bound, but not in this
    /// form of the statement).
    public static func numberedPlaceholders(_ sql: String) -> (sql: String, used: Set<Int>) {
        var out = ""
        var used: Set<Int> = []
        var largest = 0
        var quote: Character?
        var chars = Array(sql)[...]
        while let c = chars.popFirst() {
            if c == "'" || c == "\"" {
                if quote == nil { quote = c } else if quote == c { quote = nil }
            }
            guard c == "?", quote == nil else {
                out.append(c)
                continue
            }
            var digits = ""
            while let d = chars.first, d.isASCII, d.isNumber {
                digits.append(d)
                chars.removeFirst()
            }
            let n = Int(digits) ?? largest + 1
            largest = max(largest, n)
            used.insert(n)
            out += "$\(n)"
        }
        return (out, used)
    }
}

/// A statement of `PostgresSQLConnection`. It is prepared when it first
/// runs, each parameter declared with the type of the value bound to it
/// then (an integer as int8, bytes as bytea; text and NULL left for the
/// server to infer from the SQL: text, or bytea for a group or key); the
/// types the server settled on decide how each value is sent afterwards.
/// Rows come in binary and are read a row at a time from the whole result.
public final class PostgresSQLStatement: SQLStatement {
    let sql: String
    /// The parameter numbers the SQL uses.
    private let used: Set<Int>
    private let name: String
    private unowned let owner: PostgresSQLConnection
    private var values: [Value] = []
    private var prepared: (statement: PostgresStatement, types: [PostgresType])?
    private var result: PostgresResult?
    private var row = -1

    private enum Value {
        case null, integer(Int64), real(Double), text([UInt8]), bytes([UInt8])
    }

    init(sql: String, used: Set<Int>, name: String, owner: PostgresSQLConnection) {
        self.sql = sql
        self.used = used
        self.name = name
        self.owner = owner
    }

    private func set(_ index: Int32, _ value: Value) -> Self {
        let i = Int(index) - 1
        if i >= values.count { values += Array(repeating: .null, count: i + 1 - values.count) }
        values[i] = value
        return self
    }

    @discardableResult public func bind(_ index: Int32, _ value: Int64) -> Self { set(index, .integer(value)) }
    @discardableResult public func bind(_ index: Int32, _ value: Double) -> Self { set(index, .real(value)) }
    @discardableResult public func bind(_ index: Int32, utf8: UnsafeBufferPointer<UInt8>) -> Self { set(index, .text(Array(utf8))) }
    @discardableResult public func bind(_ index: Int32, blob: [UInt8]) -> Self { set(index, .bytes(blob)) }
    @discardableResult public func bind(_ index: Int32, lentBlob: UnsafeBufferPointer<UInt8>) -> Self { set(index, .bytes(Array(lentBlob))) }
    @discardableResult public func bindNull(_ index: Int32) -> Self { set(index, .null) }

    /// Prepares the statement on first use, declaring the types of the values bound now.
    private func preparedStatement() throws(StoreError) -> (statement: PostgresStatement, types: [PostgresType]) {
        if let prepared { return prepared }
        // A number the SQL skips is declared too (any type: it is never read),
        // or the server could not settle it.
        let declared: [PostgresType] = (0..<max(values.count, used.max() ?? 0)).map { i in
            guard used.contains(i + 1) else { return .int8 }
            switch i < values.count ? values[i] : .null {
            case .integer: return .int8
            case .real: return .float8
            case .bytes: return .bytea
            case .text, .null: return .unspecified
            }
        }
        let statement = PostgresStatement(name, sql, parameterTypes: declared)
        let settled = (statement, try owner.connection.parameterTypes(of: statement))
        prepared = settled
        return settled
    }

    /// Each value in the form its parameter's type reads.
    private func parameters(for types: [PostgresType]) throws(StoreError) -> [PostgresValue] {
        var out: [PostgresValue] = []
        out.reserveCapacity(types.count)
        for (i, type) in types.enumerated() {
            let value = i < values.count ? values[i] : .null
            switch value {
            case .null: out.append(.null)
            case .integer(let n):
                switch type {
                case .int8: out.append(.int8(n))
                case .int4 where Int32(exactly: n) != nil: out.append(.int4(Int32(n)))
                case .float8: out.append(.float8(Double(n)))
                default: out.append(.literal(String(n)))
                }
            case .real(let d): out.append(type == .float8 ? .float8(d) : .literal("\(d)"))
            // Text and bytea take a value's bytes as they are, in binary.
            case .text(let bytes), .bytes(let bytes):
                if type == .bytea {
                    out.append(.bytea(bytes))
                } else if case .text = value {
                    guard !bytes.contains(0) else { throw Self.nulInText }
                    out.append(.text(String(decoding: bytes, as: UTF8.self)))
                } else {
                    throw .internalFailure("bytes bound to parameter \(i + 1) of type \(type.rawValue) in: \(sql)")
                }
            }
        }
        return out
    }

    /// PostgreSQL's text holds any character but U+0000; SQLite's holds that too.
    static let nulInText = StoreError.invalidArgument(
        field: "text", reason: "a store on PostgreSQL cannot hold the character U+0000 in a name or a text value (groups, keys and values can)")

    private func send() throws(StoreError) -> PostgresResult {
        let p: (statement: PostgresStatement, types: [PostgresType])
        do { p = try preparedStatement() } catch { throw owner.failure(error) }
        // A value refused here was never sent: the transaction goes on.
        let parameters = try parameters(for: p.types)
        // Queued statements go first, in the same round trip.
        if owner.hasQueued {
            guard let r = try owner.send(then: (p.statement, parameters)) else {
                throw .internalFailure("no answer to the statement sent after the queued ones: \(sql)")
            }
            return r
        }
        do {
            let r = try owner.connection.run(p.statement, parameters)
            owner.noteChanges(r.rowsAffected)
            return r
        } catch {
            throw owner.failure(error)
        }
    }

    public func step() throws(StoreError) -> Bool {
        if result == nil {
            result = try send()
            row = -1
        }
        row += 1
        return row < result!.rowCount
    }

    /// Runs to the end; the values bound stay bound, as SQLite's do.
    public func run() throws(StoreError) {
        defer {
            result = nil
            row = -1
        }
        _ = try send()
    }

    public func runPipelined(then: ((_ row: (any SQLStatement)?) throws(StoreError) -> Void)?) throws(StoreError) {
        guard owner.isInTransaction else {
            guard let then else { return try run() }
            defer { reset() }
            return try then(try step() ? self : nil)
        }
        let p: (statement: PostgresStatement, types: [PostgresType])
        do { p = try preparedStatement() } catch { throw owner.failure(error) }
        owner.enqueue(p.statement, try parameters(for: p.types), reader: then.map { (self, $0) })
    }

    /// Hands `then` this statement on the first row of `answer` (a queued
    /// run's), then puts back whatever result it was reading.
    func deliver(_ answer: PostgresResult, to then: ((any SQLStatement)?) throws(StoreError) -> Void) throws(StoreError) {
        let reading = (result, row)
        (result, row) = (answer, 0)
        defer { (result, row) = reading }
        try then(answer.rowCount > 0 ? self : nil)
    }

    public func reset() {
        result = nil
        row = -1
        values.removeAll(keepingCapacity: true)
    }

    // NULL reads as SQLite reads it: 0, "" or no bytes; a column whose type
    // cannot be read as the one asked is an error, NULL or not (`PostgresResult`).
    public func isNull(_ column: Int32) -> Bool { result?.isNull(row, Int(column)) ?? true }
    public func int64(_ column: Int32) throws(StoreError) -> Int64 { try result?.int64(row, Int(column)) ?? 0 }
    public func double(_ column: Int32) throws(StoreError) -> Double { try result?.double(row, Int(column)) ?? 0 }
    // Groups and keys are bytea (byte order, as SQLite's binary collation): their bytes are the text's UTF-8.
    public func string(_ column: Int32) throws(StoreError) -> String { String(decoding: try blob(column), as: UTF8.self) }
    public func blob(_ column: Int32) throws(StoreError) -> [UInt8] { try result?.bytes(row, Int(column)) ?? [] }
}
