import LarderStorage

/// The SQL of the cache tier, in one place: `DiskTier` runs its statements,
/// and the benchmark's storage floor uses the very same text (with the tables
/// `StoreLayout` makes), so the floor measures what Larder runs.
public enum CacheSQL {
    /// A value of this many bytes or more is moved in place where the engine
    /// can (`SQLConnection.movesBlobsInPlace`): stored over zeros, and read
    /// without a whole copy of SQLite's own.
    public static let inPlaceValueBytes = 1 << 20

    /// One entry by (cache, group, key).
    public static let lookup = "SELECT id, kind, value, stored_at, validated_at, ttl, revision FROM entries WHERE cache = ? AND grp = ? AND key = ?"

    /// `lookup`, but a value of `inPlaceValueBytes` or more is NULL, to be
    /// read in place: SQLite evaluates a CASE lazily, so the value's column
    /// is not read then. The size is written into the text rather than bound:
    /// binding it cost a disk hit about 60 instructions (callgrind).
    public static let lookupLeavingLargeValues = """
        SELECT id, kind, CASE WHEN size < \(inPlaceValueBytes) THEN value END, stored_at, validated_at, ttl, revision FROM entries
        WHERE cache = ? AND grp = ? AND key = ?
        """

    /// The columns of an entry that every write sets, in the order `insert`,
    /// `update` and `write` list them: the one list those statements are
    /// written from, and their parameters numbered from (`Insert`, `Update`).
    public enum EntryColumn: Int32, CaseIterable, Sendable {
        case kind, value, size, storedAt, validatedAt, ttl, used, expiresAt, revision

        public var name: String {
            switch self {
            case .kind: "kind"
            case .value: "value"
            case .size: "size"
            case .storedAt: "stored_at"
            case .validatedAt: "validated_at"
            case .ttl: "ttl"
            case .used: "used"
            case .expiresAt: "expires_at"
            case .revision: "revision"
            }
        }
    }

    /// The parameters of `insert`, `insertIfNew`, `upsert` and `write`, and
    /// of their sealed forms (which add `sealedKey`).
    public enum Insert {
        @inlinable public static var cache: Int32 { 1 }
        /// The key's group; the key is the parameter after.
        @inlinable public static var group: Int32 { 2 }
        /// The entry's first column; each is at its `EntryColumn` offset from it.
        @inlinable public static var entry: Int32 { 4 }
        @inlinable public static var sealedKey: Int32 { entry + EntryColumn.revision.rawValue + 1 }
        static let keyColumns = ["cache", "grp", "key"]
    }

    /// The parameters of `update`.
    public enum Update {
        /// The entry's first column; each is at its `EntryColumn` offset from it.
        @inlinable public static var entry: Int32 { 1 }
        @inlinable public static var id: Int32 { entry + EntryColumn.revision.rawValue + 1 }
        @inlinable public static var cache: Int32 { id + 1 }
        /// The key's group; the key is the parameter after.
        @inlinable public static var group: Int32 { id + 2 }
    }

    /// A new entry.
    public static let insert = insert(sealed: false)

    private static func insert(sealed: Bool) -> String {
        let columns = Insert.keyColumns + EntryColumn.allCases.map(\.name) + (sealed ? ["sealed_key"] : [])
        return "INSERT INTO entries (\(columns.joined(separator: ", ")))\nVALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))"
    }

    /// A new entry, or nothing when the key is taken (then `update` replaces
    /// it): unlike an UPSERT with RETURNING, this needs no temporary table, so
    /// a new key costs what a plain INSERT costs.
    public static let insertIfNew = insert + " ON CONFLICT (cache, grp, key) DO NOTHING"

    /// `insertIfNew` for an encrypted cache: the key sealed too, in `sealed_key`.
    public static let insertSealedIfNew = insertSealed + " ON CONFLICT (cache, grp, key) DO NOTHING"

    static let insertSealed = insert(sealed: true)

    /// Replaces the entry in a known row; the key columns guard against a row
    /// id that was reused for another key.
    public static let update = "UPDATE entries SET " + EntryColumn.allCases.map { "\($0.name) = ?" }.joined(separator: ", ")
        + "\nWHERE id = ? AND cache = ? AND grp = ? AND key = ?"

    /// The statements run on every cache read or write. Connections keep
    /// them by number (`SQLConnection.statement(number:sql:)`): finding one
    /// by its text, hashing and comparing it, cost about as much as binding it.
    public enum Hot: Int, Sendable {
        case lookup, lookupLeavingLargeValues, insertIfNew, update, insertSealedIfNew, write, writeSealed
        /// PostgreSQL's alone (see `CacheSQL.Checked`).
        case writeIfRevision, writeIfAbsent, writeSealedIfAbsent, increment

        public func sql(for dialect: SQLDialect) -> String {
            switch self {
            case .lookup: CacheSQL.lookup
            case .lookupLeavingLargeValues: CacheSQL.lookupLeavingLargeValues
            case .insertIfNew: CacheSQL.insertIfNew + (dialect.insertReturnsRowID ? " RETURNING id" : "")
            case .insertSealedIfNew: CacheSQL.insertSealedIfNew + (dialect.insertReturnsRowID ? " RETURNING id" : "")
            case .update: CacheSQL.update
            case .write: CacheSQL.write
            case .writeSealed: CacheSQL.writeSealed
            case .writeIfRevision: CacheSQL.writeIfRevision
            case .writeIfAbsent: CacheSQL.writeIfAbsent(sealed: false)
            case .writeSealedIfAbsent: CacheSQL.writeIfAbsent(sealed: true)
            case .increment: CacheSQL.increment
            }
        }
    }

    /// An entry stored or replaced, answering its row's id and the size it
    /// replaced (NULL for a new key): one statement whose answer can wait,
    /// so that a burst of sets is sent in one round trip on an engine that
    /// pipelines (`SQLDialect.pipelinesWrites`, PostgreSQL). SQLite runs
    /// `insertIfNew` and `update` instead: there a statement waited for
    /// costs a function call, and RETURNING a temporary table.
    ///
    /// The size replaced is read by a subquery in RETURNING: a statement
    /// does not see its own changes (its snapshot is taken before it), so
    /// the subquery finds the row as it was, or none.
    public static let write = upsert + replacedSize

    /// `write` for an encrypted cache: the key sealed too, in `sealed_key`.
    public static let writeSealed = insertSealed + upsertSet
        + ", sealed_key = excluded.sealed_key" + replacedSize

    private static let replacedSize = " RETURNING id, (SELECT size FROM entries AS before WHERE before.id = entries.id)"

    /// An entry stored or replaced in one statement (the storage floor's overwrite).
    public static let upsert = insert + upsertSet

    /// What an upsert replaces of an entry whose key is taken: every column but the key's.
    static let upsertSet = " ON CONFLICT (cache, grp, key) DO UPDATE SET "
        + EntryColumn.allCases.map { "\($0.name) = excluded.\($0.name)" }.joined(separator: ", ")
}

extension SQLConnection {
    /// The hot statement `h`, prepared on first use and kept by its number.
    @inline(__always)
    public func statement(_ h: CacheSQL.Hot) throws(StoreError) -> any SQLStatement {
        try statement(number: h.rawValue) { h.sql(for: dialect) }
    }
}
