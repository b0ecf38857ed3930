import LarderStorage

/// A value as an entity table's column holds it.
///
/// Text compares and hashes by its UTF-8 bytes, as SQLite compares it: two
/// identifiers that Swift would call equal after Unicode normalisation are
/// still two records.
enum ColumnValue: Hashable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    static func == (a: ColumnValue, b: ColumnValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case let (.integer(x), .integer(y)): return x == y
        case let (.real(x), .real(y)): return x == y
        case let (.text(x), .text(y)): return x.utf8.elementsEqual(y.utf8)
        case let (.blob(x), .blob(y)): return x == y
        default: return false
        }
    }

    func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .integer(let i): hasher.combine(1); hasher.combine(i)
        case .real(let d): hasher.combine(2); hasher.combine(d)
        case .text(let s):
            hasher.combine(3)
            var copy = s
            copy.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        case .blob(let b): hasher.combine(4); hasher.combine(b)
        }
    }

    var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}

/// The storage class of a column, which is also its declared type in the
/// (STRICT) table.
enum ColumnKind: String, Sendable {
    case integer = "INTEGER"
    case real = "REAL"
    case text = "TEXT"
    case blob = "BLOB"

    /// The column type that holds it in `dialect`.
    func type(in dialect: SQLDialect) -> String {
        switch self {
        case .integer: dialect.integer
        case .real: dialect.real
        case .text: dialect.text
        case .blob: dialect.bytes
        }
    }
}

extension SQLStatement {
    @discardableResult
    func bind(_ index: Int32, _ value: ColumnValue) -> Self {
        switch value {
        case .null: return bindNull(index)
        case .integer(let i): return bind(index, i)
        case .real(let d): return bind(index, d)
        case .text(let s): return bind(index, s)
        case .blob(let b): return bind(index, blob: b)
        }
    }

    /// Column `column` read as `kind` (STRICT tables hold nothing else), or `.null`.
    func value(_ column: Int32, as kind: ColumnKind) throws(StoreError) -> ColumnValue {
        if isNull(column) { return .null }
        switch kind {
        case .integer: return .integer(try int64(column))
        case .real: return .real(try double(column))
        case .text: return .text(try string(column))
        case .blob: return .blob(try blob(column))
        }
    }
}
