#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CSQLite
import Foundation
import LarderJSON
import XCTest

/// A store directory of its own for one test, removed with everything in it when the test ends.
final class TemporaryStore {
    let path: String
    var database: String { path + "/larder.db" }

    init(_ label: String) {
        path = NSTemporaryDirectory() + "larder-\(label)-" + UUID().uuidString
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// Starts `larder --store` on this directory.
    func start(_ arguments: [String] = []) throws -> LarderProcess {
        try LarderProcess(["--store", path] + arguments)
    }
}

extension LarderProcess {
    /// `cache.set` of `key` to `value` in the default cache; the response.
    func set(_ key: String, _ value: JSON, id: JSON = 1, file: StaticString = #filePath, line: UInt = #line) -> JSON? {
        request("cache.set", params: ["key": .string(key), "value": value], id: id, file: file, line: line)
    }

    /// `cache.get` of `key` in the default cache; the response.
    func get(_ key: String, id: JSON = 1, file: StaticString = #filePath, line: UInt = #line) -> JSON? {
        request("cache.get", params: ["key": .string(key)], id: id, file: file, line: line)
    }

    /// Closes stdin and returns the exit code.
    func endInput(file: StaticString = #filePath, line: UInt = #line) -> Int32? {
        closeStdin()
        let code = waitForExit()
        XCTAssertNotNil(code, "larder did not exit at the end of its input; stderr: \(stderrText)", file: file, line: line)
        return code
    }
}

/// The store's database opened as another SQLite user would open it.
enum SQLiteCheck {
    /// What `PRAGMA integrity_check` says of the database at `path` (["ok"] when it is intact),
    /// or why it could not be asked.
    static func integrity(of path: String) -> [String] {
        var db: OpaquePointer?
        defer { sqlite3_close_v2(db) }
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let db else {
            return ["cannot open \(path): \(db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory")"]
        }
        var statement: OpaquePointer?
        defer { sqlite3_finalize(statement) }
        guard sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &statement, nil) == SQLITE_OK else {
            return ["cannot check: \(String(cString: sqlite3_errmsg(db)))"]
        }
        var rows: [String] = []
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_ROW {
                rows.append(String(cString: sqlite3_column_text(statement, 0)))
            } else {
                if rc != SQLITE_DONE { rows.append("integrity_check failed: \(String(cString: sqlite3_errmsg(db)))") }
                return rows
            }
        }
    }
}
