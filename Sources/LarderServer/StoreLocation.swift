import LarderCore
import LarderPostgreSQL

/// Where a store is: a directory (SQLite, the embedded default), memory, or
/// a schema of a PostgreSQL database shared by sidecars on many hosts.
public enum StoreLocation: Equatable, Sendable {
    case directory(String)
    case memory
    case postgreSQL(url: String, schema: String)

    /// `--store`'s value (or `$LARDER_STORE`'s): a `postgresql://` or
    /// `postgres://` URL names a server, anything else a directory.
    /// `schema` (`--pg-schema`) is for a server only.
    public init(_ text: String, schema: String? = nil) throws(StoreError) {
        if PostgresStore.isURL(text) {
            self = .postgreSQL(url: text, schema: schema ?? PostgresStore.defaultSchema)
        } else if schema != nil {
            throw .invalidArgument(field: "schema", reason: "a schema is for a store on PostgreSQL (a postgresql:// URL), not for a directory")
        } else {
            self = .directory(text)
        }
    }

    public func open(clock: Clock) throws(StoreError) -> Store {
        switch self {
        case .directory(let path): try Store(directory: path, clock: clock)
        case .memory: try Store(directory: nil, clock: clock)
        case .postgreSQL(let url, let schema): try PostgresStore.open(url: url, schema: schema, clock: clock)
        }
    }

    /// For logs and answers: the directory, or the URL without its password and the schema.
    public var description: String {
        switch self {
        case .directory(let path): path
        case .memory: "memory"
        case .postgreSQL(let url, let schema): PostgresStore.location(url: url, schema: schema)
        }
    }
}
