import LarderStorage

/// What encrypted caches share: the keys this session holds for them, and
/// the store's salt for deriving each cache's key from its key.
final class StoreEncryption {
    let database: any SQLConnection
    let transactions: Transactions
    /// The keys the session holds for encrypted caches.
    var keys = EncryptionKeys(key: nil)
    /// The store's salt for cache keys, once read.
    private let knownSalt = Derived<[UInt8]?>(nil)

    init(database: any SQLConnection, transactions: Transactions) {
        self.database = database
        self.transactions = transactions
        transactions.observe(knownSalt)
    }

    /// What the store records of an encrypted cache's key.
    struct KeyState {
        var keyCheck: [UInt8]?
        /// What the cache's entries are sealed in (nil: the first format, see `CacheSealer`).
        var generation: [UInt8]?
        /// The check value of the key a rekey under way (or stopped) seals with.
        var rekeyCheck: [UInt8]?
        /// The generation that rekey seals in (nil for one begun before generations).
        var rekeyGeneration: [UInt8]?
        /// The last row that rekey re-sealed.
        var rekeyCursor: Int64
    }

    func keyState(of cache: Cache) throws(StoreError) -> KeyState {
        let s = try database.statement("SELECT key_check, generation, rekey_check, rekey_generation, rekey_cursor FROM caches WHERE id = ?")
        s.bind(1, cache.id)
        defer { s.reset() }
        guard try s.step() else { throw .cacheNotFound(cache.name) }
        func blob(_ column: Int32) throws(StoreError) -> [UInt8]? { s.isNull(column) ? nil : try s.blob(column) }
        return KeyState(keyCheck: try blob(0), generation: try blob(1), rekeyCheck: try blob(2), rekeyGeneration: try blob(3),
                        rekeyCursor: try s.int64(4))
    }

    /// The store's salt for deriving cache keys: random, made when the first
    /// encrypted cache is created, and kept for the store's life.
    func salt(create: Bool) throws(StoreError) -> [UInt8] {
        if let known = knownSalt.value { return known }
        func read() throws(StoreError) -> [UInt8]? {
            let s = try database.statement("SELECT value FROM store_meta WHERE name = 'encryptionSalt'")
            defer { s.reset() }
            return try s.step() ? Self.bytes(hex: s.string(0)) : nil
        }
        if let stored = try read() {
            knownSalt.value = stored
            return stored
        }
        guard create else { throw .corrupt(.cacheSettings(cache: "*"), reason: "encrypted caches exist but the store has no salt for their keys") }
        try transactions.begin()
        // Another process may have made one before this one took the lock.
        if let stored = try read() {
            knownSalt.value = stored
            return stored
        }
        let made = try Crypto.random(16)
        let s = try database.statement("INSERT INTO store_meta (name, value) VALUES ('encryptionSalt', ?)")
        s.bind(1, made.map { String($0, radix: 16).leftPadded(to: 2) }.joined())
        try s.run()
        // Not kept until committed: a rollback would take the row back.
        return made
    }

    /// A new encrypted cache's key check and generation, or a refusal when the session has no key.
    func sealing(forNew name: String) throws(StoreError) -> (check: [UInt8], generation: [UInt8]) {
        guard let key = keys.key(for: name) else { throw .encryption(cache: name, problem: .keyRequired) }
        let generation = try CacheSealer.newGeneration()
        return (try CacheSealer(key: key, salt: try salt(create: true), cache: name, generation: generation).check, generation)
    }

    private static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        for i in stride(from: 0, to: digits.count, by: 2) {
            guard let b = UInt8(String(decoding: digits[i...i + 1], as: UTF8.self), radix: 16) else { return nil }
            out.append(b)
        }
        return out
    }
}

extension String {
    fileprivate func leftPadded(to n: Int) -> String { String(repeating: "0", count: max(0, n - count)) + self }
}
