/// Everything the persistence core can refuse or fail at. The server maps
/// each case to one JSON-RPC error code, in one place.
public enum StoreError: Error, Equatable, Sendable {
    /// The store directory or database cannot be created or opened.
    case unavailable(path: String, reason: String)
    /// SQLite reported an error (I/O, disk full, corruption, a read-only file).
    case storage(code: Int32, message: String)
    /// A cache that must exist does not.
    case cacheNotFound(String)
    /// A parameter is well-typed but its value is not acceptable.
    case invalidArgument(field: String, reason: String)
}
