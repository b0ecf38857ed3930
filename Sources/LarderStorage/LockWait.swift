/// How long a write waits for another writer's lock before it fails, as
/// retryable (SPEC 13), whatever the engine: SQLite's busy timeout, and the
/// most a PostgreSQL sidecar waits for the store's write lock.
public enum LockWait {
    public static let milliseconds: Int32 = 5000
}
