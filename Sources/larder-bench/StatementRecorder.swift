import LarderCore
import LarderStorage

/// One statement a store ran in a write transaction, with the values bound to
/// it; no values for SQL run whole (`SAVEPOINT batch`).
struct RecordedStatement {
    enum Value {
        case null, integer(Int64), real(Double), text(String), bytes([UInt8])
    }

    var sql: String
    var values: [Value]?
}

/// The statements of one committed write transaction, in the order they ran.
typealias RecordedTransaction = [RecordedStatement]

/// A connection that hands every call to the store's own and, while
/// `isRecording`, keeps each statement run in a write transaction that
/// commits, with its values. Larder's core writes entities with statements it
/// builds from the model; recording them from the core itself gives a floor
/// the very statements (text and values) larder runs, whatever they become.
final class StatementRecorder: SQLConnection {
    private let base: any SQLConnection
    var isRecording = false
    private(set) var transactions: [RecordedTransaction] = []
    /// The open transaction's statements, while recording.
    private var open: RecordedTransaction?
    /// The text of each statement kept by number, as first given.
    private var numbered: [Int: String] = [:]

    init(_ base: any SQLConnection) { self.base = base }

    fileprivate func note(_ statement: RecordedStatement) { open?.append(statement) }

    var dialect: SQLDialect { base.dialect }
    var location: String { base.location }
    var changes: Int { base.changes }
    var lastInsertRowID: Int64 { base.lastInsertRowID }
    var isInTransaction: Bool { base.isInTransaction }
    var transactionFailure: StoreError? { base.transactionFailure }
    var isClosed: Bool { base.isClosed }

    func statement(_ sql: String) throws(StoreError) -> any SQLStatement {
        RecordingStatement(try base.statement(sql), sql: sql, recorder: self)
    }

    func statement(number: Int, sql: () -> String) throws(StoreError) -> any SQLStatement {
        let text = numbered[number] ?? sql()
        numbered[number] = text
        return RecordingStatement(try base.statement(number: number) { text }, sql: text, recorder: self)
    }

    func execute(_ sql: String) throws(StoreError) {
        try base.execute(sql)
        note(RecordedStatement(sql: sql, values: nil))
    }

    func begin() throws(StoreError) {
        try base.begin()
        if isRecording { open = [] }
    }

    func commit() throws(StoreError) {
        defer { open = nil }
        try base.commit()
        if let open { transactions.append(open) }
    }

    func rollback() {
        base.rollback()
        open = nil
    }

    func savepoint(_ name: String) throws(StoreError) {
        try base.savepoint(name)
        note(RecordedStatement(sql: "SAVEPOINT \(name)", values: nil))
    }

    func release(savepoint name: String) throws(StoreError) {
        try base.release(savepoint: name)
        note(RecordedStatement(sql: "RELEASE \(name)", values: nil))
    }

    func rollback(toSavepoint name: String) {
        base.rollback(toSavepoint: name)
        note(RecordedStatement(sql: "ROLLBACK TO \(name)", values: nil))
        note(RecordedStatement(sql: "RELEASE \(name)", values: nil))
    }

    func waitForLocksAgain() { base.waitForLocksAgain() }
    func settle() throws(StoreError) { try base.settle() }
    func close() { base.close() }
}

/// A statement of `StatementRecorder`: the store's own, whose values are
/// noted as they are bound and recorded when it runs.
private final class RecordingStatement: SQLStatement {
    private let base: any SQLStatement
    private let sql: String
    private unowned let recorder: StatementRecorder
    private var values: [RecordedStatement.Value] = []
    /// Set once the statement has run and been recorded; `step` moves on through its rows.
    private var ran = false

    init(_ base: any SQLStatement, sql: String, recorder: StatementRecorder) {
        self.base = base
        self.sql = sql
        self.recorder = recorder
    }

    private func set(_ index: Int32, _ value: RecordedStatement.Value) -> Self {
        let i = Int(index) - 1
        if i >= values.count { values += Array(repeating: .null, count: i + 1 - values.count) }
        values[i] = value
        return self
    }

    @discardableResult func bind(_ index: Int32, _ value: Int64) -> Self {
        base.bind(index, value)
        return set(index, .integer(value))
    }

    @discardableResult func bind(_ index: Int32, _ value: Double) -> Self {
        base.bind(index, value)
        return set(index, .real(value))
    }

    @discardableResult func bind(_ index: Int32, utf8: UnsafeBufferPointer<UInt8>) -> Self {
        base.bind(index, utf8: utf8)
        return set(index, .text(String(decoding: utf8, as: UTF8.self)))
    }

    @discardableResult func bind(_ index: Int32, blob: [UInt8]) -> Self {
        base.bind(index, blob: blob)
        return set(index, .bytes(blob))
    }

    @discardableResult func bind(_ index: Int32, lentBlob: UnsafeBufferPointer<UInt8>) -> Self {
        base.bind(index, lentBlob: lentBlob)
        return set(index, .bytes(Array(lentBlob)))
    }

    @discardableResult func bindNull(_ index: Int32) -> Self {
        base.bindNull(index)
        return set(index, .null)
    }

    func step() throws(StoreError) -> Bool {
        if !ran {
            ran = true
            recorder.note(RecordedStatement(sql: sql, values: values))
        }
        return try base.step()
    }

    func runPipelined(then: ((_ row: (any SQLStatement)?) throws(StoreError) -> Void)?) throws(StoreError) {
        recorder.note(RecordedStatement(sql: sql, values: values))
        try base.runPipelined(then: then)
    }

    /// Values stay bound after a run, as the store's statements keep them.
    func run() throws(StoreError) {
        recorder.note(RecordedStatement(sql: sql, values: values))
        try base.run()
    }

    func reset() {
        ran = false
        values.removeAll(keepingCapacity: true)
        base.reset()
    }

    func isNull(_ column: Int32) -> Bool { base.isNull(column) }
    func int64(_ column: Int32) throws(StoreError) -> Int64 { try base.int64(column) }
    func double(_ column: Int32) throws(StoreError) -> Double { try base.double(column) }
    func string(_ column: Int32) throws(StoreError) -> String { try base.string(column) }
    func blob(_ column: Int32) throws(StoreError) -> [UInt8] { try base.blob(column) }
}
