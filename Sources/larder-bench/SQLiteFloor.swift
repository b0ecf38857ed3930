#if canImport(Glibc)
import Glibc
#endif
import CSQLite
import LarderSQLite
import LarderCore
import LarderSystem

/// SQLite used in-process with Larder's schema, pragmas and statements: what
/// Larder's disk tier could do at best without any protocol in the way.
final class SQLiteFloor: StorageFloor {
    /// The store's own SQL: the floor runs exactly what Larder runs.
    static let schema = StoreLayout.script(for: .sqlite)
    static let pragmas = [SQLiteDatabase.busyTimeout, SQLiteDatabase.writeAheadLog, SQLiteDatabase.synchronous]
    static let selectSQL = CacheSQL.lookupLeavingLargeValues
    static let insertSQL = CacheSQL.insert
    static let upsertSQL = CacheSQL.upsert
    static let updateSQL = CacheSQL.update

    static let title = "storage floor: SQLite in-process, Larder's schema, pragmas (WAL, synchronous=NORMAL) and statements"

    let directory: String
    let path: String
    private let db: SQLiteConnection
    private let select: OpaquePointer
    private let insert: OpaquePointer
    private let upsert: OpaquePointer
    private let update: OpaquePointer
    private let begin: OpaquePointer
    private let commit: OpaquePointer
    private var used: Int64 = 0
    private let cacheID: Int64 = 1
    private var key = [UInt8](repeating: 0, count: KeySpace.width)
    /// Keeps the reads of value bytes from being optimised away.
    private(set) var checksum = 0

    /// `makeTables` false: the directory holds a store Larder's core made (the entity floor's).
    init(directory: String, makeTables: Bool = true) {
        self.directory = directory
        _ = directory.withCString { mkdir($0, 0o755) }
        path = directory + "/" + Store.databaseFileName
        db = SQLiteConnection(path: path)
        for p in Self.pragmas { db.execute(p) }
        if makeTables { db.execute("BEGIN; " + Self.schema + " COMMIT;") }
        select = db.prepare(Self.selectSQL)
        insert = db.prepare(Self.insertSQL)
        upsert = db.prepare(Self.upsertSQL)
        update = db.prepare(Self.updateSQL)
        begin = db.prepare("BEGIN IMMEDIATE")
        commit = db.prepare("COMMIT")
    }

    func close() { db.close() }

    func discard() {
        close()
        ScratchDirectory.remove(directory)
    }

    private func setKey(_ keys: KeySpace, _ n: Int) {
        key.removeAll(keepingCapacity: true)
        keys.append(n, to: &key)
    }

    private func bindKey(_ s: OpaquePointer, from first: Int32) {
        sqlite3_bind_text(s, first, "", 0, SQLiteConnection.transient)
        key.withUnsafeBytes { k in
            _ = sqlite3_bind_text(s, first + 1, k.baseAddress!.assumingMemoryBound(to: CChar.self), Int32(k.count), SQLiteConnection.transient)
        }
    }

    @inline(__always)
    private func write(_ s: OpaquePointer, keys: KeySpace, _ n: Int, value: [UInt8], kind: Int64 = 1) {
        setKey(keys, n)
        used += 1
        sqlite3_bind_int64(s, 1, cacheID)
        bindKey(s, from: 2)
        sqlite3_bind_int64(s, 4, kind)
        value.withUnsafeBytes { v in _ = sqlite3_bind_blob(s, 5, v.baseAddress, Int32(v.count), SQLiteConnection.transient) }
        sqlite3_bind_int64(s, 6, Int64(value.count))
        sqlite3_bind_int64(s, 7, 1_760_000_000_000)
        sqlite3_bind_int64(s, 8, 1_760_000_000_000)
        sqlite3_bind_null(s, 9)
        sqlite3_bind_int64(s, 10, used)
        sqlite3_bind_null(s, 11)
        sqlite3_bind_int64(s, 12, used)
        db.run(s)
    }

    func insert(keys: KeySpace, _ numbers: Range<Int>, value: [UInt8], perTransaction: Int) -> UInt64 {
        let t0 = MonotonicClock.nanoseconds()
        var n = numbers.lowerBound
        while n < numbers.upperBound {
            let upper = min(n + perTransaction, numbers.upperBound)
            db.run(begin)
            for k in n..<upper { write(insert, keys: keys, k, value: value) }
            db.run(commit)
            n = upper
        }
        return MonotonicClock.nanoseconds() - t0
    }

    /// Overwrites the given existing keys with INSERT … ON CONFLICT DO UPDATE, batched; returns nanoseconds.
    func overwrite(keys: KeySpace, _ numbers: [Int], value: [UInt8], perTransaction: Int) -> UInt64 {
        let t0 = MonotonicClock.nanoseconds()
        var k = 0
        while k < numbers.count {
            let upper = min(k + perTransaction, numbers.count)
            db.run(begin)
            for j in k..<upper { write(upsert, keys: keys, numbers[j], value: value) }
            db.run(commit)
            k = upper
        }
        return MonotonicClock.nanoseconds() - t0
    }

    func select(keys: KeySpace, _ numbers: [Int]) -> UInt64 {
        let t0 = MonotonicClock.nanoseconds()
        for n in numbers { lookup(keys, n) }
        return MonotonicClock.nanoseconds() - t0
    }

    /// Looks up one key (it must exist) and reads its columns.
    @inline(__always)
    private func lookup(_ keys: KeySpace, _ n: Int) {
        let s = select
        setKey(keys, n)
        sqlite3_bind_int64(s, 1, cacheID)
        bindKey(s, from: 2)
        guard sqlite3_step(s) == SQLITE_ROW else { Progress.fail("storage floor: key \(n) not found") }
        var sum = Int(sqlite3_column_int64(s, 0)) &+ Int(sqlite3_column_int64(s, 1))
        let bytes = Int(sqlite3_column_bytes(s, 2))
        if let p = sqlite3_column_blob(s, 2), bytes > 0 {
            sum &+= Int(p.load(fromByteOffset: bytes - 1, as: UInt8.self))
        }
        sum &+= Int(sqlite3_column_int64(s, 3)) &+ Int(sqlite3_column_int64(s, 4)) &+ (sqlite3_column_type(s, 5) == SQLITE_NULL ? 0 : 1)
            &+ Int(sqlite3_column_int64(s, 6))
        checksum &+= sum
        sqlite3_reset(s)
        sqlite3_clear_bindings(s)
    }

    func insertObjects(keys: KeySpace, _ values: [[UInt8]], perTransaction: Int) -> [Int64] {
        var ids: [Int64] = []
        ids.reserveCapacity(values.count)
        for (k, value) in values.enumerated() {
            if k % perTransaction == 0 { db.run(begin) }
            write(insert, keys: keys, k, value: value, kind: 2)
            ids.append(sqlite3_last_insert_rowid(db.handle))
            if k % perTransaction == perTransaction - 1 || k == values.count - 1 { db.run(commit) }
        }
        return ids
    }

    func migrate(keys: KeySpace, _ numbers: Range<Int>, ids: [Int64], values: [[UInt8]], perTransaction: Int) -> UInt64 {
        let s = update
        let t0 = MonotonicClock.nanoseconds()
        var n = numbers.lowerBound
        while n < numbers.upperBound {
            let upper = min(n + perTransaction, numbers.upperBound)
            db.run(begin)
            for k in n..<upper {
                lookup(keys, k)
                used += 1
                sqlite3_bind_int64(s, 1, 2)
                values[k].withUnsafeBytes { v in _ = sqlite3_bind_blob(s, 2, v.baseAddress, Int32(v.count), SQLiteConnection.transient) }
                sqlite3_bind_int64(s, 3, Int64(values[k].count))
                sqlite3_bind_int64(s, 4, 1_760_000_000_000)
                sqlite3_bind_int64(s, 5, 1_760_000_000_000)
                sqlite3_bind_null(s, 6)
                sqlite3_bind_int64(s, 7, used)
                sqlite3_bind_null(s, 8)
                sqlite3_bind_int64(s, 9, used)
                sqlite3_bind_int64(s, 10, ids[k])
                sqlite3_bind_int64(s, 11, cacheID)
                bindKey(s, from: 12)
                db.run(s)
                guard sqlite3_changes(db.handle) == 1 else { Progress.fail("storage floor: object \(k) was not updated") }
            }
            db.run(commit)
            n = upper
        }
        return MonotonicClock.nanoseconds() - t0
    }

    func replay(_ transactions: [RecordedTransaction]) -> UInt64 {
        var prepared: [String: OpaquePointer] = [:]
        func statement(_ sql: String) -> OpaquePointer {
            if let s = prepared[sql] { return s }
            let s = db.prepare(sql)
            prepared[sql] = s
            return s
        }
        let t0 = MonotonicClock.nanoseconds()
        for transaction in transactions {
            db.run(begin)
            for recorded in transaction {
                let s = statement(recorded.sql)
                for (i, value) in (recorded.values ?? []).enumerated() {
                    let index = Int32(i + 1)
                    switch value {
                    case .null: sqlite3_bind_null(s, index)
                    case .integer(let n): sqlite3_bind_int64(s, index, n)
                    case .real(let d): sqlite3_bind_double(s, index, d)
                    case .text(let t): sqlite3_bind_text(s, index, t, -1, SQLiteConnection.transient)
                    // A null pointer would bind NULL, not an empty blob.
                    case .bytes(let b) where b.isEmpty: sqlite3_bind_zeroblob(s, index, 0)
                    case .bytes(let b): b.withUnsafeBytes { _ = sqlite3_bind_blob(s, index, $0.baseAddress, Int32($0.count), SQLiteConnection.transient) }
                    }
                }
                db.run(s)
            }
            db.run(commit)
        }
        return MonotonicClock.nanoseconds() - t0
    }
}
