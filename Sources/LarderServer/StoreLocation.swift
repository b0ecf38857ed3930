import LarderCore
import LarderJSON
import LarderPostgreSQL

/// Where a store is: a directory (SQLite, the embedded default), memory, or
/// a schema of a PostgreSQL database shared by sidecars on many hosts.
public enum StoreLocation: Equatable, Sendable {
    case directory(String)
    case memory
    case postgreSQL(url: String, schema: String, coherence: PostgresCoherence)

    /// `--store`'s value (or `$LARDER_STORE`'s): a `postgresql://` or
    /// `postgres://` URL names a server, anything else a directory.
    /// `schema` (`--pg-schema`) and `coherence` (`--pg-coherence`) are for a server only.
    public init(_ text: String, schema: String? = nil, coherence: PostgresCoherence? = nil) throws(StoreError) {
        if PostgresStore.isURL(text) {
            self = .postgreSQL(url: text, schema: schema ?? PostgresStore.defaultSchema, coherence: coherence ?? .strict)
        } else if schema != nil || coherence != nil {
            throw .invalidArgument(field: schema != nil ? "schema" : "coherence",
                                   reason: "it is for a store on PostgreSQL (a postgresql:// URL), not for a directory")
        } else {
            self = .directory(text)
        }
    }

    /// A coherence named in a command line or in params, or the error that
    /// lists the names (and the one most likely meant).
    public static func coherence(named name: String) -> Result<PostgresCoherence, CoherenceNameError> {
        if let c = PostgresCoherence(rawValue: name) { return .success(c) }
        let names = PostgresCoherence.allCases.map(\.rawValue)
        let meant = NearestName.suggestion(for: name, among: names).map { " (did you mean \($0)?)" } ?? ""
        return .failure(CoherenceNameError(message: "must be strict, notify or poll, not \"\(name.echoed)\"\(meant)"))
    }

    public struct CoherenceNameError: Error {
        public let message: String
    }

    /// `pgTimeout` (`--pg-timeout`): the longest a store on PostgreSQL waits for its server.
    public func open(clock: Clock, pgTimeout: Duration = PostgresConnection.defaultTimeout) throws(StoreError) -> Store {
        switch self {
        case .directory(let path): try Store(directory: path, clock: clock)
        case .memory: try Store(directory: nil, clock: clock)
        case .postgreSQL(let url, let schema, let coherence):
            try PostgresStore.open(url: url, schema: schema, coherence: coherence, timeout: pgTimeout, clock: clock)
        }
    }

    /// For logs and answers: the directory, or the URL without its password and the schema.
    public var description: String {
        switch self {
        case .directory(let path): path
        case .memory: "memory"
        case .postgreSQL(let url, let schema, _): PostgresStore.location(url: url, schema: schema)
        }
    }
}
