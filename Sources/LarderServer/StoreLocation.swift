import LarderCore
import LarderJSON
import LarderPostgreSQL
import LarderStorage

/// Where a store is: a directory (SQLite, the embedded default), memory, or
/// a schema of a PostgreSQL database shared by sidecars on many hosts.
public enum StoreLocation: Equatable, Sendable {
    case directory(String)
    case memory
    case postgreSQL(url: String, schema: String, coherence: PostgresCoherence)

    /// `--store`'s value (or `$LARDER_STORE`'s): a `postgresql://` or
    /// `postgres://` URL names a server, a URL of any other scheme nothing
    /// (see `unknownScheme`), anything else a directory. `schema`
    /// (`--pg-schema`) and `coherence` (`--pg-coherence`) are for a server only.
    /// `subject` names where `text` came from, for the refusal's message.
    public init(_ text: String, from subject: String, schema: String? = nil, coherence: PostgresCoherence? = nil) throws(Refusal) {
        if let why = Self.unknownScheme(text, from: subject) { throw Refusal(message: why) }
        if PostgresStore.isURL(text) {
            self = .postgreSQL(url: text, schema: schema ?? PostgresStore.defaultSchema, coherence: coherence ?? .strict)
        } else if schema != nil || coherence != nil {
            throw Refusal(message: "\(schema != nil ? "--pg-schema" : "--pg-coherence") needs a store on PostgreSQL (\(subject) a postgresql:// URL), not the directory \(text)")
        } else {
            self = .directory(text)
        }
    }

    public struct Refusal: Error {
        public let message: String
    }

    /// Why `text`, from `subject`, names no store, when it is a URL of a
    /// scheme Larder does not know: taken as a directory, `mysql://app@db/x`
    /// or a misspelt `postgresq://…` became the directory `./mysql:/app@db/x`
    /// and stored what a database was meant to. A directory whose name starts
    /// like a URL can still be given as `./name://…`. Nil for a directory or
    /// a PostgreSQL URL. The URL is shown without its password.
    public static func unknownScheme(_ text: String, from subject: String) -> String? {
        guard let scheme = PostgresStore.scheme(of: text), !PostgresStore.isURL(text) else { return nil }
        let meant = NearestName.suggestion(for: String(scheme), among: PostgresStore.schemes).map { " (did you mean \($0)://?)" } ?? ""
        let url = PostgresStore.redacted(text).echoed
        return "\(subject) \(url) is a \(String(scheme).echoed):// URL, a scheme Larder does not know\(meant): "
            + "a store is a directory, or a database on PostgreSQL named by a postgresql:// or postgres:// URL "
            + "(a directory of that name can be given as ./\(url))"
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
            try Store(PostgresStore.open(url: url, schema: schema, coherence: coherence, timeout: pgTimeout), clock: clock)
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
