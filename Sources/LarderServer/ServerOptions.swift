import LarderCore
import LarderPostgreSQL

/// How the server was started (from the command line).
public struct ServerOptions: Sendable {
    /// The store directory, or nil for an in-memory store.
    public var storePath: String?
    public var maxMessageBytes = 64 << 20
    /// Accept `debug.*` methods (tests only).
    public var enableTestMethods = false
    /// Refuse every request before `initialize` with -32002.
    public var requireInitialize = false
    /// The app's version (`--app-version`), unless `initialize` declares one.
    public var appVersion: String?
    /// The key for encrypted caches (`--key-file`), unless `initialize` gives one.
    public var encryptionKey: EncryptionKey?
    /// The store-wide disk budget (`--max-store-bytes`); nil: none.
    public var maxStoreBytes: Int?
    /// The longest a store on PostgreSQL waits for its server (`--pg-timeout`),
    /// the one `initialize`'s `store.url` opens included.
    public var pgTimeout = PostgresConnection.defaultTimeout
    /// Answer plain `cache.get` and `cache.set` requests straight from their
    /// bytes; turned off only to check that both paths answer alike.
    public var directAnswers = true

    public init(storePath: String?) {
        self.storePath = storePath
    }
}
