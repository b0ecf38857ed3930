import CSQLite
import Foundation
import LarderCore
import LarderSQLite

/// SQLite's own verdict on a store: `PRAGMA integrity_check`.
enum StoreIntegrity {
    static let databaseFileName = "larder.db"

    /// The check of the store in `directory` exactly as a crash left it. Its
    /// database and write-ahead log are copied aside and checked there, so
    /// that the check's recovery of the log leaves the store itself for the
    /// next server to recover. (Without the copy's `-shm`, recovery rebuilds
    /// the index from the log alone, which is also what survives a power cut.)
    static func checkCrashed(directory: String) -> [String] {
        let scratch = NSTemporaryDirectory() + "larder-crash-copy-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let files = FileManager.default
        do {
            try files.createDirectory(atPath: scratch, withIntermediateDirectories: true)
            for suffix in ["", "-wal"] where files.fileExists(atPath: directory + "/" + databaseFileName + suffix) {
                try files.copyItem(atPath: directory + "/" + databaseFileName + suffix, toPath: scratch + "/" + databaseFileName + suffix)
            }
        } catch {
            return ["cannot copy the store: \(error)"]
        }
        return check(path: scratch + "/" + databaseFileName, flags: SQLITE_OPEN_READWRITE)
    }

    /// The check of the store in `directory`, read only, when no server has it open.
    static func check(directory: String) -> [String] {
        check(path: directory + "/" + databaseFileName, flags: SQLITE_OPEN_READONLY)
    }

    /// The rows `PRAGMA integrity_check` gives: `["ok"]` for a sound database.
    private static func check(path: String, flags: Int32) -> [String] {
        var db: OpaquePointer?
        defer { sqlite3_close_v2(db) }
        // SQLite is set up once per process, before its first connection, and
        // every test target shares this process: set it up as Larder does.
        SQLiteLibrary.configure()
        guard sqlite3_open_v2(path, &db, flags, nil) == SQLITE_OK, let db else {
            return ["cannot open \(path): \(db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory")"]
        }
        var statement: OpaquePointer?
        defer { sqlite3_finalize(statement) }
        guard sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &statement, nil) == SQLITE_OK else {
            return ["cannot check \(path): \(String(cString: sqlite3_errmsg(db)))"]
        }
        var rows: [String] = []
        while true {
            let rc = sqlite3_step(statement)
            guard rc == SQLITE_ROW else {
                if rc != SQLITE_DONE { rows.append("the check itself failed: \(String(cString: sqlite3_errmsg(db)))") }
                return rows
            }
            rows.append(sqlite3_column_text(statement, 0).map { String(cString: $0) } ?? "")
        }
    }
}
