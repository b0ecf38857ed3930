import CLibPQ
import LarderStorage

/// What a statement returned: its rows (all of them, held by libpq until
/// this is released) and its command tag. Rows and columns count from 0.
///
/// Each reader takes a column in either format, so that the same code reads
/// a binary result of a prepared statement and the text result of a simple
/// query; it returns nil for NULL and refuses a column whose type it cannot
/// read as asked, instead of guessing.
public final class PostgresResult {
    let raw: OpaquePointer

    init(_ raw: OpaquePointer) { self.raw = raw }

    deinit { PQclear(raw) }

    public var rowCount: Int { Int(PQntuples(raw)) }
    public var columnCount: Int { Int(PQnfields(raw)) }

    /// The column's name; empty for a column the result does not have.
    public func columnName(_ column: Int) -> String {
        guard let name = PQfname(raw, Int32(column)) else { return "" }
        return String(cString: name)
    }

    /// The column's index, or nil when no column has that name.
    public func column(named name: String) -> Int? {
        let n = PQfnumber(raw, SQLDialect.quoted(name))
        return n < 0 ? nil : Int(n)
    }

    public func type(of column: Int) -> PostgresType { PostgresType(rawValue: PQftype(raw, Int32(column))) }

    public func format(of column: Int) -> PostgresFormat {
        PQfformat(raw, Int32(column)) == 1 ? .binary : .text
    }

    /// The command tag: "INSERT 0 1", "SELECT 3", "COMMIT", "ROLLBACK"…
    public var commandTag: String { cText(PQcmdStatus(raw)) }

    /// Rows an INSERT, UPDATE, DELETE (and others, see PQcmdTuples) touched or returned.
    public var rowsAffected: Int { Int(cText(PQcmdTuples(raw))) ?? 0 }

    public func isNull(_ row: Int, _ column: Int) -> Bool { PQgetisnull(raw, Int32(row), Int32(column)) == 1 }

    /// An integer column (int2, int4, int8, oid).
    public func int64(_ row: Int, _ column: Int) throws(StoreError) -> Int64? {
        guard let bytes = try value(row, column, reading: "an integer", { [.int8, .int4, .int2, .oid].contains($0) }) else { return nil }
        if format(of: column) == .text {
            guard let n = Int64(String(decoding: bytes, as: UTF8.self)) else { throw unreadable(row, column, as: "an integer") }
            return n
        }
        // Two, four or eight bytes; oid is unsigned.
        let n = Self.bigEndian(bytes)
        switch bytes.count {
        case 8: return Int64(bitPattern: n)
        case 4 where type(of: column) == .oid: return Int64(n)
        case 4: return Int64(Int32(truncatingIfNeeded: n))
        case 2: return Int64(Int16(truncatingIfNeeded: n))
        default: throw unreadable(row, column, as: "an integer")
        }
    }

    /// A binary value's bytes as a big-endian number (of up to eight bytes).
    private static func bigEndian(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// A floating-point column (float8, float4), or an integer one as a double.
    public func double(_ row: Int, _ column: Int) throws(StoreError) -> Double? {
        let type = type(of: column)
        if type != .float8 && type != .float4 { return try int64(row, column).map(Double.init) }
        guard let bytes = try value(row, column, reading: "a number", { _ in true }) else { return nil }
        if format(of: column) == .text {
            guard let d = Double(String(decoding: bytes, as: UTF8.self)) else { throw unreadable(row, column, as: "a number") }
            return d
        }
        let n = Self.bigEndian(bytes)
        switch bytes.count {
        case 8: return Double(bitPattern: n)
        case 4: return Double(Float(bitPattern: UInt32(truncatingIfNeeded: n)))
        default: throw unreadable(row, column, as: "a number")
        }
    }

    /// A text column (text, varchar, char, name, json), or any column of a text-format result.
    public func string(_ row: Int, _ column: Int) throws(StoreError) -> String? {
        let binary = format(of: column) == .binary
        guard let bytes = try value(row, column, reading: "text", { !binary || $0.isTextual }) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A bytea column as its bytes (decoded from hex in a text-format
    /// result), or a text column's UTF-8 bytes.
    public func bytes(_ row: Int, _ column: Int) throws(StoreError) -> [UInt8]? {
        guard let bytes = try value(row, column, reading: "bytes", { $0 == .bytea || $0.isTextual }) else { return nil }
        guard type(of: column) == .bytea, format(of: column) == .text else { return Array(bytes) }
        var length = 0
        guard let decoded = PQunescapeBytea(bytes.baseAddress, &length) else { throw unreadable(row, column, as: "bytes") }
        defer { PQfreemem(decoded) }
        return Array(UnsafeBufferPointer(start: decoded, count: length))
    }

    /// The value's bytes as libpq holds them (valid while this result lives),
    /// or nil for NULL; a column of a type not `accepted` is refused.
    private func value(_ row: Int, _ column: Int, reading what: String,
                       _ accepted: (PostgresType) -> Bool) throws(StoreError) -> UnsafeBufferPointer<UInt8>? {
        guard row >= 0, row < rowCount, column >= 0, column < columnCount else {
            throw .internalFailure("no row \(row), column \(column) in a result of \(rowCount) rows and \(columnCount) columns")
        }
        guard accepted(type(of: column)) else { throw unreadable(row, column, as: what) }
        guard !isNull(row, column) else { return nil }
        let length = Int(PQgetlength(raw, Int32(row), Int32(column)))
        let start = UnsafeRawPointer(PQgetvalue(raw, Int32(row), Int32(column)))?.assumingMemoryBound(to: UInt8.self)
        return UnsafeBufferPointer(start: start, count: length)
    }

    private func unreadable(_ row: Int, _ column: Int, as what: String) -> StoreError {
        .internalFailure("column \(column) (\(columnName(column)), type \(type(of: column).rawValue)) of row \(row) cannot be read as \(what)")
    }
}
