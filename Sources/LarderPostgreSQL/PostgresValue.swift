import CLibPQ
import LarderStorage

/// A parameter of a statement sent to PostgreSQL.
public enum PostgresValue: Equatable, Sendable {
    case null
    case int8(Int64)
    case text(String)
    /// Bytes, stored as `bytea`: any bytes, zeros included, of any length
    /// up to PostgreSQL's 1 GB limit for one value.
    case bytea([UInt8])
    case int4(Int32)
    case float8(Double)
    /// A value in its text form, for a parameter of any type the server
    /// parses it as (numeric, a boolean…): the fallback for a value whose
    /// binary form is not the parameter's.
    case literal(String)

    /// The type the server is told the parameter has; NULL leaves it to the
    /// statement (a prepared statement's declared type, or what SQL implies).
    var type: PostgresType {
        switch self {
        case .null: .unspecified
        case .int8: .int8
        case .text: .text
        case .bytea: .bytea
        case .int4: .int4
        case .float8: .float8
        case .literal: .unspecified
        }
    }
}

/// How parameters and results travel between libpq and the server.
///
/// In binary, an int8 is its 8 bytes and a bytea its bytes as they are; in
/// text, an int8 is its decimal digits and a bytea is hex escaped (`\x...`),
/// twice its size, which the server decodes and encodes again. Text values
/// are their UTF-8 bytes either way, sent with their length (so that a NUL
/// inside is refused by the server instead of ending the string early).
public enum PostgresFormat: Int32, Sendable {
    case text = 0
    case binary = 1
}

/// A PostgreSQL type, by its object identifier (OID) in `pg_type`: fixed
/// numbers for the built-in types.
public struct PostgresType: RawRepresentable, Hashable, Sendable {
    public let rawValue: Oid
    public init(rawValue: Oid) { self.rawValue = rawValue }

    /// Leaves the type for the server to infer.
    public static let unspecified = PostgresType(rawValue: 0)
    public static let bytea = PostgresType(rawValue: 17)
    public static let name = PostgresType(rawValue: 19)
    public static let int8 = PostgresType(rawValue: 20)
    public static let int2 = PostgresType(rawValue: 21)
    public static let int4 = PostgresType(rawValue: 23)
    public static let text = PostgresType(rawValue: 25)
    public static let float4 = PostgresType(rawValue: 700)
    public static let float8 = PostgresType(rawValue: 701)
    public static let oid = PostgresType(rawValue: 26)
    public static let json = PostgresType(rawValue: 114)
    public static let unknown = PostgresType(rawValue: 705)
    public static let bpchar = PostgresType(rawValue: 1042)
    public static let varchar = PostgresType(rawValue: 1043)

    /// Types whose binary form is their text's UTF-8 bytes, as in text format.
    var isTextual: Bool {
        [.text, .varchar, .bpchar, .name, .unknown, .json].contains(self)
    }
}
