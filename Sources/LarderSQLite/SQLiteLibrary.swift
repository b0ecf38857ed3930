import CSQLite
import LarderStorage

/// Process-wide settings of the SQLite library, made once, before the first
/// connection opens (SQLite refuses them after that, and nothing changes).
public enum SQLiteLibrary {
    /// Makes the settings, once per process.
    public static func configure() { _ = configured }

    /// Memory statistics off: with them SQLite takes a global mutex on every
    /// allocation and free (about five per cache get), to count bytes that
    /// nothing here reads (no `sqlite3_memory_used`, no soft heap limit).
    private static let configured: Bool = larder_sqlite3_config_memstatus(0) == SQLITE_OK
}
