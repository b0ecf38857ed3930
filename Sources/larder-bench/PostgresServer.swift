#if canImport(Glibc)
import Glibc
#endif
import LarderCore
import LarderPostgreSQL
import LarderStorage

/// The PostgreSQL server a `--store postgresql://…` run keeps its stores on:
/// each series and repetition gets a schema of its own, made fresh and
/// dropped after it, as the SQLite runs get a fresh directory.
final class PostgresServer {
    let url: String
    /// The server's version ("15.18") and the settings that decide whether a
    /// commit waits for the disk.
    let version: String
    let fsync: String
    let synchronousCommit: String
    private let admin: PostgresConnection
    /// Schemas of this run are named after the bench's process, so that two
    /// runs on one server never drop each other's.
    private let prefix = "bench\(getpid())_"

    init(url: String) {
        self.url = url
        do {
            let admin = try PostgresConnection(url, settings: ["application_name": "larder-bench"])
            func setting(_ name: String) throws(StoreError) -> String {
                try admin.query("SELECT current_setting($1)", [.text(name)]).string(0, 0) ?? "?"
            }
            version = try setting("server_version").split(separator: " ").first.map(String.init) ?? "?"
            fsync = try setting("fsync")
            synchronousCommit = try setting("synchronous_commit")
            self.admin = admin
        } catch {
            Progress.fail("cannot use the PostgreSQL server at \(PostgresStore.redacted(url)): \(error)", code: 2)
        }
    }

    /// Whether a commit the server acknowledges is on its disk.
    var isDurable: Bool { fsync == "on" && synchronousCommit != "off" }

    /// "PostgreSQL 15.18 (fsync on, synchronous_commit on)".
    var description: String { "PostgreSQL \(version) (fsync \(fsync), synchronous_commit \(synchronousCommit))" }

    /// The schema for a series or repetition `name`, dropped first if a run
    /// that was interrupted left it behind.
    func freshSchema(_ name: String) -> String {
        let sanitized = String(name.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "_" })
        let schema = String((prefix + sanitized).prefix(63))
        drop(schema: schema)
        return schema
    }

    func drop(schema: String) {
        do {
            try admin.execute("DROP SCHEMA IF EXISTS \(SQLDialect.quoted(schema)) CASCADE")
        } catch {
            Progress.fail("cannot drop schema \(schema): \(error)")
        }
    }

    /// A connection whose statements find Larder's tables in `schema`, as a sidecar's do.
    func connect(schema: String) -> PostgresConnection {
        do {
            return try PostgresConnection(url, settings: ["application_name": "larder-bench"],
                                          sessionSetup: "SET search_path TO \(SQLDialect.quoted(schema))")
        } catch {
            Progress.fail("cannot connect to \(PostgresStore.redacted(url)): \(error)")
        }
    }
}
