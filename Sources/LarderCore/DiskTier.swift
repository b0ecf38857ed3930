import LarderStorage

/// The SQL behind one persistent cache's disk tier. Rows of all caches share
/// one table, keyed by (cache id, group, key). An encrypted cache's rows hold
/// what its `sealer` makes of keys and values (see `CacheSealer`); every
/// method here takes and gives them in clear.
struct DiskTier {
    let db: any SQLConnection
    let cacheID: Int64
    var sealer: CacheSealer? = nil
    /// The cache's name, for errors about its sealed rows.
    var cacheName = ""

    func entry(from s: any SQLStatement, at offset: Int32 = 0) throws(StoreError) -> Entry {
        let ttl = s.isNull(offset + 5) ? nil : try s.int64(offset + 5)
        var e = Entry(kind: Entry.Kind(rawValue: try s.int(offset + 1)) ?? .data, bytes: try s.blob(offset + 2),
                      storedAt: try s.int64(offset + 3), ttl: ttl)
        e.validatedAt = try s.int64(offset + 4)
        e.revision = try s.int64(offset + 6)
        e.diskID = try s.int64(offset)
        return e
    }

    /// Binds the columns that find `k` (group, then key) from parameter
    /// `first`; for an encrypted cache, returns the MACs bound.
    @discardableResult
    func bind(_ k: EntryKey, to s: any SQLStatement, from first: Int32) throws(StoreError) -> (group: [UInt8], key: [UInt8])? {
        guard let sealer else {
            // Both texts in one call through the seam. The closures return
            // nothing: returning the statement (a generic Self) kept the
            // standard library's withUnsafeMutableBytes unspecialized, about
            // 280 instructions a set (callgrind).
            k.withGroupUTF8 { group in k.withKeyUTF8 { key in _ = s.bind(first, utf8: group, andNext: key) } }
            return nil
        }
        let t = try sealer.tokens(k)
        s.bind(first, blob: t.group).bind(first + 1, blob: t.key)
        return t
    }

    /// Binds the column that finds `group` at parameter `index`.
    private func bind(group: String, to s: any SQLStatement, at index: Int32) throws(StoreError) {
        if let sealer { s.bind(index, blob: try sealer.token(group: group)) } else { s.bind(index, group) }
    }

    /// The key of a row read with `grp, key` at `columns` and, for an
    /// encrypted cache, `sealed_key` at `sealed`: a sealed key that does not
    /// open in its row (changed, or copied from another) is -31061.
    func key(from s: any SQLStatement, columns first: Int32, sealed: Int32) throws(StoreError) -> EntryKey {
        guard let sealer else { return EntryKey(group: try s.string(first), key: try s.string(first + 1)) }
        do { return try sealer.openKey(s.blob(sealed), tokens: (s.blob(first), s.blob(first + 1))) } catch {
            throw .integrity(cache: cacheName, key: nil)
        }
    }

    func lookup(_ k: EntryKey) throws(StoreError) -> Entry? {
        var wholeAlways: BlobReader?
        return try lookup(k, leavingLargeValueIn: &wholeAlways, leaving: false)
    }

    /// The entry under `k`; a value of `CacheSQL.inPlaceValueBytes` or more,
    /// where the engine can read it in place, is left there: the entry's
    /// `bytes` are then empty and `inPlace` reads them, as they were at the
    /// lookup, until it is released.
    func lookup(_ k: EntryKey, leavingLargeValueIn inPlace: inout BlobReader?) throws(StoreError) -> Entry? {
        try lookup(k, leavingLargeValueIn: &inPlace, leaving: true)
    }

    /// Not `leaving`, a large value is read whole, straight from the pages,
    /// rather than through a copy SQLite makes of its own first.
    private func lookup(_ k: EntryKey, leavingLargeValueIn inPlace: inout BlobReader?, leaving: Bool) throws(StoreError) -> Entry? {
        // A sealed value is opened whole, so it is read whole.
        let s = try db.statement(sealer == nil && db.movesBlobsInPlace ? .lookupLeavingLargeValues : .lookup)
        s.bind(1, cacheID)
        try bind(k, to: s, from: 2)
        defer { s.reset() }
        guard try s.step() else { return nil }
        var e = try entry(from: s)
        if e.bytes.isEmpty && s.isNull(2) {
            // Opened while the lookup's statement still holds its read of the
            // store: another process's write in between cannot be seen.
            let value = try db.openBlob(table: "entries", column: "value", row: e.diskID)
            if leaving {
                inPlace = value
            } else {
                e.bytes = try value.readAll()
            }
        }
        if let sealer {
            do { e.bytes = try sealer.open(e.bytes, kind: e.kind, for: k) } catch { throw .integrity(cache: cacheName, key: k.key) }
        }
        return e
    }

    /// The revision of the row under `k` and when it expires, with the
    /// row's id and size (which a write over it then need not look up), if
    /// there is one; `locking`, the row is locked until the transaction ends
    /// (PostgreSQL's `FOR UPDATE`; SQLite's write transaction locks the whole store).
    func revision(of k: EntryKey, locking: Bool, lifespan: Int64) throws(StoreError)
        -> (revision: Int64, expiresAt: Int64?, row: (id: Int64, size: Int))? {
        let s = try db.statement("SELECT revision, validated_at, ttl, id, size FROM entries WHERE cache = ? AND grp = ? AND key = ?"
            + (locking ? " FOR UPDATE" : ""))
        s.bind(1, cacheID)
        try bind(k, to: s, from: 2)
        defer { s.reset() }
        guard try s.step() else { return nil }
        let life = s.isNull(2) ? lifespan : try s.int64(2)
        return (try s.int64(0), life > 0 ? try s.int64(1) + life : nil, (try s.int64(3), try s.int(4)))
    }

    /// Stores an entry under `k` only if no row holds the key: the new
    /// row's id, or nil (nothing written) when one does.
    func insert(_ k: EntryKey, _ e: Entry, value: UnsafeBufferPointer<UInt8>, used: Int64, lifespan: Int64) throws(StoreError) -> Int64? {
        guard let sealer else { return try insertRow(k, e, stored: value, size: value.count, used: used, lifespan: lifespan) }
        let sealed = try sealer.seal(value, kind: e.kind, for: k)
        return try sealed.withUnsafeBufferPointer { (stored) throws(StoreError) in
            try insertRow(k, e, stored: stored, size: value.count, used: used, lifespan: lifespan)
        }
    }

    private func insertRow(_ k: EntryKey, _ e: Entry, stored value: UnsafeBufferPointer<UInt8>, size: Int, used: Int64,
                           lifespan: Int64) throws(StoreError) -> Int64? {
        let s = try db.statement(sealer == nil ? .insertIfNew : .insertSealedIfNew)
        s.bind(CacheSQL.Insert.cache, cacheID)
        let tokens = try bind(k, to: s, from: CacheSQL.Insert.group)
        bind(e, value: value, size: size, used: used, expiresAt: e.expiresAt(lifespan: lifespan), to: s, from: CacheSQL.Insert.entry)
        if let sealer, let tokens { s.bind(CacheSQL.Insert.sealedKey, blob: try sealer.seal(key: k, tokens: tokens)) }
        return try insertedRowID(s)
    }

    /// The id and size of the row under `k`, if any.
    func existing(_ k: EntryKey) throws(StoreError) -> (id: Int64, size: Int)? {
        let s = try db.statement("SELECT id, size FROM entries WHERE cache = ? AND grp = ? AND key = ?")
        s.bind(1, cacheID)
        try bind(k, to: s, from: 2)
        defer { s.reset() }
        return try s.step() ? (s.int64(0), s.int(1)) : nil
    }

    /// Stores an entry whose value is `value` (its own `bytes` are not read:
    /// the memory tier may not keep a copy): in `known` (the row the memory
    /// tier says holds the key) when that row still does, else as a new row,
    /// else over the row found. SQLite reads `value` in place.
    /// Returns the row id and the size replaced (nil for a new key).
    func write(_ k: EntryKey, _ e: Entry, value: UnsafeBufferPointer<UInt8>, used: Int64, lifespan: Int64,
               known: (id: Int64, size: Int)?) throws(StoreError) -> (id: Int64, replaced: Int?) {
        guard let sealer else { return try write(k, e, stored: value, size: value.count, used: used, lifespan: lifespan, known: known) }
        let sealed = try sealer.seal(value, kind: e.kind, for: k)
        return try sealed.withUnsafeBufferPointer { (stored) throws(StoreError) in
            try write(k, e, stored: stored, size: value.count, used: used, lifespan: lifespan, known: known)
        }
    }

    /// `write` of the bytes to store (sealed, for an encrypted cache) for a value of `size` bytes.
    private func write(_ k: EntryKey, _ e: Entry, stored value: UnsafeBufferPointer<UInt8>, size: Int, used: Int64, lifespan: Int64,
                       known: (id: Int64, size: Int)?) throws(StoreError) -> (id: Int64, replaced: Int?) {
        let expiresAt = e.expiresAt(lifespan: lifespan)
        // A large value is stored as zeros, then copied over them in place:
        // SQLite would otherwise build the row's record from it, one more
        // copy of the whole value while it is stored.
        let inPlace = value.count >= CacheSQL.inPlaceValueBytes && db.movesBlobsInPlace
        let row = try writeRow(k, e, value: value, inPlace: inPlace, size: size, used: used, expiresAt: expiresAt, known: known)
        if inPlace { try db.writeBlob(table: "entries", column: "value", row: row.id, from: value) }
        return row
    }

    /// The row of `write`, its value's bytes or, `inPlace`, as many zeros.
    private func writeRow(_ k: EntryKey, _ e: Entry, value: UnsafeBufferPointer<UInt8>, inPlace: Bool, size: Int, used: Int64,
                          expiresAt: Int64?, known: (id: Int64, size: Int)?) throws(StoreError) -> (id: Int64, replaced: Int?) {
        if let known, try update(id: known.id, k, e, value: value, inPlace: inPlace, size: size, used: used, expiresAt: expiresAt) {
            return (known.id, known.size)
        }
        let s = try db.statement(sealer == nil ? .insertIfNew : .insertSealedIfNew)
        s.bind(CacheSQL.Insert.cache, cacheID)
        let tokens = try bind(k, to: s, from: CacheSQL.Insert.group)
        bind(e, value: value, inPlace: inPlace, size: size, used: used, expiresAt: expiresAt, to: s, from: CacheSQL.Insert.entry)
        if let sealer, let tokens { s.bind(CacheSQL.Insert.sealedKey, blob: try sealer.seal(key: k, tokens: tokens)) }
        if let id = try insertedRowID(s) { return (id, nil) }
        guard let old = try existing(k),
              try update(id: old.id, k, e, value: value, inPlace: inPlace, size: size, used: used, expiresAt: expiresAt) else {
            // The insert found the key taken, yet no row holds it: within one
            // transaction that cannot be, unless Larder's own bookkeeping is wrong.
            throw .internalFailure("an entry could be neither inserted nor updated")
        }
        return (old.id, old.size)
    }

    /// Stores an entry whose value is `value` with one statement whose
    /// answer can wait (`CacheSQL.write`), on an engine that pipelines
    /// writes: a burst of sets then costs one round trip to PostgreSQL, not
    /// one per set. `written` gets the row's id and the size it replaced
    /// (nil for a new key) once the statement has run, with the next one
    /// whose answer is needed or with the commit.
    func writePipelined(_ k: EntryKey, _ e: Entry, value: UnsafeBufferPointer<UInt8>, used: Int64, lifespan: Int64,
                        written: @escaping (_ id: Int64, _ replaced: Int?) -> Void) throws(StoreError) {
        let s = try db.statement(sealer == nil ? .write : .writeSealed)
        try bindRow(k, e, value: value, used: used, lifespan: lifespan, sealedKey: true, to: s)
        try s.runPipelined { (row) throws(StoreError) in
            guard let row else { return }
            written(try row.int64(0), row.isNull(1) ? nil : try row.int(1))
        }
    }

    /// Binds `Insert`'s parameters: the cache, `k`, and `e`'s columns with
    /// `value` (sealed, for an encrypted cache, and its key too if `sealedKey`).
    func bindRow(_ k: EntryKey, _ e: Entry, value: UnsafeBufferPointer<UInt8>, used: Int64, lifespan: Int64, sealedKey: Bool,
                 to s: any SQLStatement) throws(StoreError) {
        s.bind(CacheSQL.Insert.cache, cacheID)
        let tokens = try bind(k, to: s, from: CacheSQL.Insert.group)
        let expiresAt = e.expiresAt(lifespan: lifespan)
        guard let sealer, let tokens else {
            return bind(e, value: value, size: value.count, used: used, expiresAt: expiresAt, to: s, from: CacheSQL.Insert.entry)
        }
        let sealed = try sealer.seal(value, kind: e.kind, for: k)
        sealed.withUnsafeBufferPointer {
            bind(e, value: $0, size: value.count, used: used, expiresAt: expiresAt, to: s, from: CacheSQL.Insert.entry)
        }
        if sealedKey { s.bind(CacheSQL.Insert.sealedKey, blob: try sealer.seal(key: k, tokens: tokens)) }
    }

    /// Runs an insert-or-nothing; the new row's id, or nil when the key was taken.
    private func insertedRowID(_ s: any SQLStatement) throws(StoreError) -> Int64? {
        guard db.dialect.insertReturnsRowID else {
            try s.run()
            return db.changes == 1 ? db.lastInsertRowID : nil
        }
        defer { s.reset() }
        return try s.step() ? s.int64(0) : nil
    }

    /// Replaces the row `id` if it still holds `k`; false if it does not.
    private func update(id: Int64, _ k: EntryKey, _ e: Entry, value: UnsafeBufferPointer<UInt8>, inPlace: Bool, size: Int, used: Int64,
                        expiresAt: Int64?) throws(StoreError) -> Bool {
        let s = try db.statement(.update)
        bind(e, value: value, inPlace: inPlace, size: size, used: used, expiresAt: expiresAt, to: s, from: CacheSQL.Update.entry)
        s.bind(CacheSQL.Update.id, id).bind(CacheSQL.Update.cache, cacheID)
        try bind(k, to: s, from: CacheSQL.Update.group)
        try s.run()
        return db.changes == 1
    }

    /// Binds an entry's columns (`CacheSQL.EntryColumn`), the first at
    /// parameter `first`. `size` is the value's own size, before any
    /// sealing: limits count it; `inPlace`, the value is bound as zeros, to
    /// be written over.
    func bind(_ e: Entry, value: UnsafeBufferPointer<UInt8>, inPlace: Bool = false, size: Int, used: Int64, expiresAt: Int64?,
                      to s: any SQLStatement, from first: Int32) {
        typealias Column = CacheSQL.EntryColumn
        s.bind(first + Column.kind.rawValue, e.kind.rawValue)
        if inPlace {
            s.bind(first + Column.value.rawValue, zeroBlob: value.count)
        } else {
            s.bind(first + Column.value.rawValue, lentBlob: value)
        }
        s.bind(first + Column.size.rawValue, size)
            .bind(first + Column.storedAt.rawValue, e.storedAt).bind(first + Column.validatedAt.rawValue, e.validatedAt)
        if let ttl = e.ttl { s.bind(first + Column.ttl.rawValue, ttl) } else { s.bindNull(first + Column.ttl.rawValue) }
        s.bind(first + Column.used.rawValue, used)
        if let expiresAt {
            s.bind(first + Column.expiresAt.rawValue, expiresAt)
        } else {
            s.bindNull(first + Column.expiresAt.rawValue)
        }
        s.bind(first + Column.revision.rawValue, e.revision)
    }

    func delete(id: Int64) throws(StoreError) {
        let s = try db.statement("DELETE FROM entries WHERE id = ?")
        s.bind(1, id)
        try s.run()
    }

    /// Restarts a row's lifetime at `now`; `expiresAt` is when it now expires.
    func touch(id: Int64, at now: Int64, expiresAt: Int64?) throws(StoreError) {
        let s = try db.statement("UPDATE entries SET validated_at = ?, expires_at = ? WHERE id = ?")
        s.bind(1, now).bind(3, id)
        if let expiresAt { s.bind(2, expiresAt) } else { s.bindNull(2) }
        try s.run()
    }

    /// The expiry of rows without a ttl of their own follows a new lifespan.
    func setLifespan(_ lifespan: Int64) throws(StoreError) {
        let s = try db.statement("""
            UPDATE entries SET expires_at = CASE WHEN ?1 > 0 THEN validated_at + ?1 END WHERE cache = ?2 AND ttl IS NULL
            """)
        s.bind(1, lifespan).bind(2, cacheID)
        try s.run()
    }

    /// Rows expired at `now`, soonest first (by the expiry index), at most `limit`.
    func expiredFirst(at now: Int64, limit: Int) throws(StoreError) -> [(id: Int64, key: EntryKey, size: Int)] {
        let s = try db.statement("""
            SELECT id, grp, key, size, sealed_key FROM entries WHERE cache = ? AND expires_at <= ? ORDER BY expires_at, id LIMIT ?
            """)
        s.bind(1, cacheID).bind(2, now).bind(3, limit)
        defer { s.reset() }
        return try rows(s)
    }

    /// The rows a statement selecting `id, grp, key, size, sealed_key` finds.
    private func rows(_ s: any SQLStatement) throws(StoreError) -> [(id: Int64, key: EntryKey, size: Int)] {
        var rows: [(Int64, EntryKey, Int)] = []
        while try s.step() { rows.append((try s.int64(0), try key(from: s, columns: 1, sealed: 4), try s.int(3))) }
        return rows
    }

    /// Entry count and bytes of the whole cache.
    func totals() throws(StoreError) -> (count: Int, bytes: Int) {
        let s = try db.statement("SELECT COUNT(*), CAST(COALESCE(SUM(size), 0) AS BIGINT) FROM entries WHERE cache = ?")
        s.bind(1, cacheID)
        defer { s.reset() }
        _ = try s.step()
        return (try s.int(0), try s.int(1))
    }

    /// When the cache's first entry to expire does; nil when none expires.
    func earliestExpiry() throws(StoreError) -> Int64? {
        let s = try db.statement("SELECT MIN(expires_at) FROM entries WHERE cache = ? AND expires_at IS NOT NULL")
        s.bind(1, cacheID)
        defer { s.reset() }
        _ = try s.step()
        return s.isNull(0) ? nil : try s.int64(0)
    }

    func maxUsed() throws(StoreError) -> Int64 {
        let s = try db.statement("SELECT COALESCE(MAX(used), 0) FROM entries WHERE cache = ?")
        s.bind(1, cacheID)
        defer { s.reset() }
        _ = try s.step()
        return try s.int64(0)
    }

    /// Least recently used rows first.
    func leastRecentlyUsed(limit: Int) throws(StoreError) -> [(id: Int64, key: EntryKey, size: Int)] {
        let s = try db.statement("SELECT id, grp, key, size, sealed_key FROM entries WHERE cache = ? ORDER BY used LIMIT ?")
        s.bind(1, cacheID).bind(2, limit)
        defer { s.reset() }
        return try rows(s)
    }

    /// Rows whose lifetime (their ttl, else `lifespan`) has run out at `now`.
    func expired(at now: Int64, lifespan: Int64, group: String?) throws(StoreError) -> [(id: Int64, key: EntryKey, size: Int)] {
        let s = try db.statement("""
            SELECT id, grp, key, size, sealed_key FROM entries
            WHERE cache = ?1 AND (grp = ?4 OR ?4 IS NULL)
              AND COALESCE(ttl, ?2) > 0 AND validated_at + COALESCE(ttl, ?2) <= ?3
            ORDER BY grp, key
            """)
        s.bind(1, cacheID).bind(2, lifespan).bind(3, now)
        if let group { try bind(group: group, to: s, at: 4) } else { s.bindNull(4) }
        defer { s.reset() }
        // An encrypted cache's rows come in the order of their MACs: in key order, as for any cache.
        return sealer == nil ? try rows(s) : try rows(s).sorted { EntryKey.precedes($0.key, $1.key) }
    }

    /// Deletes a group's rows (or all); returns how many rows and bytes went.
    func clear(group: String?) throws(StoreError) -> (count: Int, bytes: Int) {
        let totals = try db.statement("""
            SELECT COUNT(*), CAST(COALESCE(SUM(size), 0) AS BIGINT) FROM entries WHERE cache = ?1 AND (grp = ?2 OR ?2 IS NULL)
            """)
        totals.bind(1, cacheID)
        if let group { try bind(group: group, to: totals, at: 2) } else { totals.bindNull(2) }
        _ = try totals.step()
        let result = (try totals.int(0), try totals.int(1))
        totals.reset()
        let s = try db.statement("DELETE FROM entries WHERE cache = ?1 AND (grp = ?2 OR ?2 IS NULL)")
        s.bind(1, cacheID)
        if let group { try bind(group: group, to: s, at: 2) } else { s.bindNull(2) }
        try s.run()
        return result
    }

    /// Keys of a group in byte order, after `cursor`, starting with `prefix`;
    /// with `validAt`, expired entries are left out.
    func keys(group: String, prefix: String, after cursor: String?, limit: Int,
              validAt now: Int64?, lifespan: Int64) throws(StoreError) -> [String] {
        if sealer != nil { return try sealedKeys(group: group, prefix: prefix, after: cursor, limit: limit, validAt: now, lifespan: lifespan) }
        let s = try db.statement("""
            SELECT key FROM entries
            WHERE cache = ?1 AND grp = ?2 AND key >= ?3
              AND substr(CAST(key AS \(db.dialect.bytes)), 1, length(CAST(?3 AS \(db.dialect.bytes)))) = CAST(?3 AS \(db.dialect.bytes))
              AND (key > ?4 OR ?4 IS NULL)
              AND (validated_at + COALESCE(ttl, ?6) > ?5 OR COALESCE(ttl, ?6) <= 0 OR ?5 IS NULL)
            ORDER BY key LIMIT ?7
            """)
        s.bind(1, cacheID).bind(2, group).bind(3, prefix).bind(6, lifespan).bind(7, limit)
        if let cursor { s.bind(4, cursor) } else { s.bindNull(4) }
        if let now { s.bind(5, now) } else { s.bindNull(5) }
        defer { s.reset() }
        var keys: [String] = []
        while try s.step() { keys.append(try s.string(0)) }
        return keys
    }

    /// `keys` of an encrypted cache: its keys are stored sealed, in no useful
    /// order, so the group's are opened, filtered and sorted here. A page
    /// costs a pass over the whole group.
    private func sealedKeys(group: String, prefix: String, after cursor: String?, limit: Int,
                            validAt now: Int64?, lifespan: Int64) throws(StoreError) -> [String] {
        let s = try db.statement("""
            SELECT grp, key, sealed_key FROM entries
            WHERE cache = ?1 AND grp = ?2 AND (validated_at + COALESCE(ttl, ?4) > ?3 OR COALESCE(ttl, ?4) <= 0 OR ?3 IS NULL)
            """)
        s.bind(1, cacheID).bind(4, lifespan)
        try bind(group: group, to: s, at: 2)
        if let now { s.bind(3, now) } else { s.bindNull(3) }
        defer { s.reset() }
        var keys: [String] = []
        while try s.step() {
            let k = try key(from: s, columns: 0, sealed: 2).key
            guard k.utf8.starts(with: prefix.utf8) else { continue }
            if let cursor, !cursor.utf8.lexicographicallyPrecedes(k.utf8) { continue }
            keys.append(k)
        }
        keys.sort { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        return Array(keys.prefix(limit))
    }

    /// The keys of every row whose kind is `kind`, in (group, key) order: for
    /// the methods of an encrypted cache that walk it.
    func sealedKeys(ofKind kind: Entry.Kind) throws(StoreError) -> [EntryKey] {
        let s = try db.statement("SELECT grp, key, sealed_key FROM entries WHERE cache = ? AND kind = ?")
        s.bind(1, cacheID).bind(2, kind.rawValue)
        defer { s.reset() }
        var keys: [EntryKey] = []
        while try s.step() { keys.append(try key(from: s, columns: 0, sealed: 2)) }
        return keys.sorted(by: EntryKey.precedes)
    }

    // MARK: - Rekeying

    /// Up to `limit` rows after `id`, in id order, as a rekey reads them.
    func rowsToReseal(after id: Int64, limit: Int) throws(StoreError) -> [(id: Int64, key: EntryKey, kind: Entry.Kind, value: [UInt8])] {
        let s = try db.statement("SELECT id, grp, key, kind, value, sealed_key FROM entries WHERE cache = ? AND id > ? ORDER BY id LIMIT ?")
        s.bind(1, cacheID).bind(2, id).bind(3, limit)
        defer { s.reset() }
        var rows: [(Int64, EntryKey, Entry.Kind, [UInt8])] = []
        while try s.step() {
            let k = try key(from: s, columns: 1, sealed: 5)
            let kind = Entry.Kind(rawValue: try s.int(3)) ?? .data
            var value = try s.blob(4)
            if let sealer {
                do { value = try sealer.open(value, kind: kind, for: k) } catch { throw .integrity(cache: cacheName, key: k.key) }
            }
            rows.append((try s.int64(0), k, kind, value))
        }
        return rows
    }

    /// Writes row `id` (holding `k`, of `kind`) again under this tier's sealer.
    func reseal(id: Int64, _ k: EntryKey, kind: Entry.Kind, value: [UInt8]) throws(StoreError) {
        guard let sealer else { throw .internalFailure("resealing a row of a cache that is not encrypted") }
        let s = try db.statement("UPDATE entries SET grp = ?, key = ?, value = ?, sealed_key = ? WHERE id = ?")
        let tokens = try sealer.tokens(k)
        s.bind(1, blob: tokens.group).bind(2, blob: tokens.key)
        let sealed = try value.withUnsafeBufferPointer { (v) throws(StoreError) in try sealer.seal(v, kind: kind, for: k) }
        s.bind(3, blob: sealed).bind(4, blob: try sealer.seal(key: k, tokens: tokens)).bind(5, id)
        try s.run()
    }
}
