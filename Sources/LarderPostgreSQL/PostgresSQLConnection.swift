import LarderCore

/// A PostgreSQL connection in the shape of the storage seam (`SQLConnection`):
/// the core's statements, written with SQLite's `?` and `?N` placeholders,
/// run here as PostgreSQL's `$N`.
public final class PostgresSQLConnection: SQLConnection {
    public let connection: PostgresConnection
    private var statements: [String: PostgresSQLStatement] = [:]
    public private(set) var changes = 0

    public init(_ connection: PostgresConnection) {
        self.connection = connection
    }

    public var dialect: SQLDialect { .postgreSQL }

    public func statement(_ sql: String) throws(StoreError) -> PostgresSQLStatement {
        if let s = statements[sql] { return s }
        let s = PostgresSQLStatement(sql: Self.numberedPlaceholders(sql), connection: self)
        statements[sql] = s
        return s
    }

    public func execute(_ sql: String) throws(StoreError) {
        changes = try connection.execute(sql).rowsAffected
    }

    fileprivate func noteChanges(_ n: Int) { changes = n }

    /// `sql` with each `?N` as `$N` and each bare `?` as the next number
    /// (one more than the largest so far, as SQLite numbers them); text in
    /// single quotes is left alone.
    static func numberedPlaceholders(_ sql: String) -> String {
        var out = ""
        var largest = 0
        var inString = false
        var chars = Array(sql)[...]
        while let c = chars.popFirst() {
            if c == "'" { inString.toggle() }
            guard c == "?", !inString else {
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
            out += "$\(n)"
        }
        return out
    }
}

/// A statement of `PostgresSQLConnection`: values are bound by position and
/// sent with the statement when it first steps or runs; rows are read from
/// its result, a row at a time.
public final class PostgresSQLStatement: SQLStatement {
    let sql: String
    private unowned let owner: PostgresSQLConnection
    private var values: [Int32: PostgresValue] = [:]
    private var result: PostgresResult?
    private var row = -1

    init(sql: String, connection: PostgresSQLConnection) {
        self.sql = sql
        owner = connection
    }

    @discardableResult public func bind(_ index: Int32, _ value: Int64) -> Self { values[index] = .int8(value); return self }
    @discardableResult public func bind(_ index: Int32, _ value: String) -> Self { values[index] = .text(value); return self }
    @discardableResult public func bind(_ index: Int32, blob: [UInt8]) -> Self { values[index] = .bytea(blob); return self }
    @discardableResult public func bindNull(_ index: Int32) -> Self { values[index] = .null; return self }

    private func send() throws(StoreError) -> PostgresResult {
        let count = Int(values.keys.max() ?? 0)
        let parameters = (0..<count).map { values[Int32($0 + 1)] ?? .null }
        let r = try owner.connection.query(sql, parameters)
        owner.noteChanges(r.rowsAffected)
        return r
    }

    public func step() throws(StoreError) -> Bool {
        if result == nil {
            result = try send()
            row = -1
        }
        row += 1
        return row < result!.rowCount
    }

    public func run() throws(StoreError) {
        _ = try send()
        result = nil
    }

    public func reset() {
        result = nil
        row = -1
    }

    // A column of another type than asked reads as SQLite would make it: 0, "" or no bytes.
    public func isNull(_ column: Int32) -> Bool { result?.isNull(row, Int(column)) ?? true }
    public func int64(_ column: Int32) -> Int64 { ((try? result?.int64(row, Int(column))) ?? nil) ?? 0 }
    public func string(_ column: Int32) -> String { ((try? result?.string(row, Int(column))) ?? nil) ?? "" }
    public func blob(_ column: Int32) -> [UInt8] { ((try? result?.bytes(row, Int(column))) ?? nil) ?? [] }
}
