import LarderStorage

/// A statement prepared by name on a connection: once per session, and
/// again on each new session after a reconnection, then run by name with
/// only its parameters sent (no parsing or planning of the text each time).
public struct PostgresStatement: Hashable, Sendable {
    /// Unique on a connection; PostgreSQL keeps it per session.
    public let name: String
    public let sql: String
    /// The types of `$1`, `$2`…; a shorter list leaves the rest for the server to infer.
    public let parameterTypes: [PostgresType]

    public init(_ name: String, _ sql: String, parameterTypes: [PostgresType] = []) {
        self.name = name
        self.sql = sql
        self.parameterTypes = parameterTypes
    }
}
