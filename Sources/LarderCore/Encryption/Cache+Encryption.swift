import LarderStorage

extension Cache {
    /// Checks the session's key against the one the cache was sealed under,
    /// and keeps the sealer made from it.
    func unlock() throws(StoreError) {
        let state = try context.encryption.keyState(of: self)
        guard let key = context.encryption.keys.key(for: name) else { throw .encryption(cache: name, problem: .keyRequired) }
        if isRekeying { throw .encryption(cache: name, problem: .rekeyRunning) }
        if state.rekeyCheck != nil { throw .encryption(cache: name, problem: .rekeyInterrupted) }
        guard let check = state.keyCheck else {
            throw .corrupt(.cacheSettings(cache: name), reason: "an encrypted cache without the check value of its key")
        }
        let sealer = try CacheSealer(key: key, salt: try context.encryption.salt(create: false), cache: name, generation: state.generation)
        guard sealer.check == check else { throw .encryption(cache: name, problem: .keyMismatch) }
        self.sealer = sealer
        // The purge passed it by while its keys could not be read.
        purgeSoon()
    }

    /// Starts re-sealing every entry under `key` in a new generation (or
    /// resumes a rekey to the same key that stopped part-way, in the
    /// generation it began). Until the returned rekey finishes, every other
    /// use of the cache is refused.
    public func beginRekey(to key: EncryptionKey) throws(StoreError) -> Rekey {
        try ready(unlocking: false)
        guard config.encrypted else {
            throw .invalidArgument(field: "cache", reason: "cache \"\(name)\" is not encrypted: there is nothing to rekey")
        }
        if isRekeying { throw .encryption(cache: name, problem: .rekeyRunning) }
        guard let current = context.encryption.keys.key(for: name) else { throw .encryption(cache: name, problem: .keyRequired) }
        let state = try context.encryption.keyState(of: self)
        let salt = try context.encryption.salt(create: false)
        let old = try CacheSealer(key: current, salt: salt, cache: name, generation: state.generation)
        guard old.check == state.keyCheck else { throw .encryption(cache: name, problem: .keyMismatch) }
        let new: CacheSealer
        var resumed = false
        var cursor: Int64 = 0
        if let pending = state.rekeyCheck {
            new = try CacheSealer(key: key, salt: salt, cache: name, generation: state.rekeyGeneration)
            guard pending == new.check else {
                throw .invalidArgument(field: "key", reason: "a rekey of cache \"\(name)\" to another key stopped part-way; finish it with that key first")
            }
            resumed = true
            cursor = state.rekeyCursor
        } else {
            let generation = try CacheSealer.newGeneration()
            new = try CacheSealer(key: key, salt: salt, cache: name, generation: generation)
            try context.transactions.begin()
            let s = try context.database.statement("UPDATE caches SET rekey_check = ?, rekey_generation = ?, rekey_cursor = 0 WHERE id = ?")
            s.bind(1, blob: new.check).bind(2, blob: generation).bind(3, id)
            try s.run()
        }
        sealer = nil
        isRekeying = true
        return Rekey(cache: self, key: key, old: old, new: new, cursor: cursor, resumed: resumed)
    }
}

/// A `cache.rekey` at work: entries re-sealed under the new key, in a new
/// generation, a batch at a time, in row order. Each batch records how far
/// it got in the same transaction as its rows, so a rekey stopped anywhere
/// (even by kill -9) resumes where the last committed batch ended; rows up
/// to there are under the new key and generation, the rest under the old.
public final class Rekey {
    public let cache: Cache
    private let key: EncryptionKey
    private let old: CacheSealer
    private let new: CacheSealer
    private var cursor: Int64
    public let resumed: Bool
    /// Entries re-sealed by this rekey (not counting those before a resume).
    public private(set) var resealed = 0
    public private(set) var isFinished = false

    init(cache: Cache, key: EncryptionKey, old: CacheSealer, new: CacheSealer, cursor: Int64, resumed: Bool) {
        self.cache = cache
        self.key = key
        self.old = old
        self.new = new
        self.cursor = cursor
        self.resumed = resumed
    }

    /// Re-seals up to `limit` entries in the current write transaction; the
    /// last batch also makes the new key the cache's. Returns whether it is finished.
    public func step(limit: Int) throws(StoreError) -> Bool {
        guard !isFinished else { return true }
        let context = cache.context
        let db = context.database
        var count = 0
        var last = cursor
        // All of a batch or none of it: its rows and how far it got go together.
        try context.transactions.atomically { () throws(StoreError) in
            let from = DiskTier(db: db, cacheID: cache.id, sealer: old, cacheName: cache.name)
            let to = DiskTier(db: db, cacheID: cache.id, sealer: new, cacheName: cache.name)
            let rows = try from.rowsToReseal(after: cursor, limit: limit)
            for row in rows { try to.reseal(id: row.id, row.key, kind: row.kind, value: row.value) }
            count = rows.count
            last = rows.last?.id ?? cursor
            let s: any SQLStatement
            if count == limit {
                s = try db.statement("UPDATE caches SET rekey_cursor = ? WHERE id = ?")
                s.bind(1, last).bind(2, cache.id)
            } else {
                s = try db.statement("""
                    UPDATE caches SET key_check = ?, generation = rekey_generation,
                        rekey_check = NULL, rekey_generation = NULL, rekey_cursor = NULL WHERE id = ?
                    """)
                s.bind(1, blob: new.check).bind(2, cache.id)
            }
            try s.run()
        }
        cursor = last
        resealed += count
        isFinished = count < limit
        return isFinished
    }

    /// Once the last batch is committed: the session uses the new key for the cache from now on.
    public func adopt() {
        cache.context.encryption.keys.byCache[cache.name] = key
        cache.isRekeying = false
        cache.sealer = nil
    }

    /// Ends the rekey where it stands (its last batch failed or the session
    /// ended): the cache stays locked until a rekey to the same key finishes.
    public func abandon() {
        cache.isRekeying = false
        cache.sealer = nil
    }
}
