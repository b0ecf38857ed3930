import LarderStorage

/// What an encrypted cache writes instead of its keys and values, under keys
/// derived for that cache alone from the client's key and the store's salt
/// (HKDF-SHA-256, one derived key per purpose):
///
/// - the `grp` and `key` columns hold MACs (HMAC-SHA-256, first 16 bytes) of
///   the group, and of the group and key: an entry is found by its key
///   without the key being stored in clear;
/// - `sealed_key` holds the group and key sealed (AES-256-GCM), for the
///   methods that list keys, with the cache's generation and the row's two
///   MACs as associated data: a sealed key copied onto another row, or
///   into the cache after a drop or a rekey, no longer opens;
/// - `value` holds the value sealed with the cache, its generation, group,
///   key and kind as associated data: a sealed value moved to another row,
///   another key or another cache, or brought back after a drop or a
///   rekey, no longer opens.
///
/// An entry's place is its key's MACs, not its row id: they are known before
/// anything is sealed (a pipelined write on PostgreSQL learns its row id
/// later), an upsert keeps them, and the unique index holds one row per key.
/// The generation, 16 random bytes stored with the cache, stands for the
/// cache's life: a cache created again under the same name (whose row id
/// SQLite may hand out again) gets a new one, and so does every rekey.
///
/// A cache created before generations (layout step `key generations`) has none: its rows
/// keep the first format, bound to the cache's name alone, until a rekey
/// re-seals them; a sealed key of that format is checked against its row's
/// MACs once opened instead.
///
/// Each seal takes a fresh random 96-bit nonce. `check` is a MAC of a fixed
/// text under a third derived key: stored with the cache, it tells a wrong
/// key from the right one before anything is read or written.
final class CacheSealer {
    let check: [UInt8]
    private let lookup: HMAC
    private let values: AESGCM
    /// The cache's name, length-prefixed, then its generation (nothing for
    /// a cache of the first format), as they enter associated data.
    private let place: [UInt8]
    /// A cache of the first format: no generation, sealed keys not bound to their row.
    private let isFirstFormat: Bool
    /// Tags of the associated data, apart for each format.
    private let keyTag: UInt8
    private let valueTag: UInt8
    /// Group tokens made so far: a cache's requests name few groups (most
    /// only ""), and each token saves an HMAC per read and write.
    private var groupTokens: [String: [UInt8]] = [:]
    private static let groupTokensKept = 1024

    static let tokenCount = 16
    static let generationCount = 16

    /// A new cache's generation, or a rekey's.
    static func newGeneration() throws(StoreError) -> [UInt8] { try Crypto.random(generationCount) }

    /// Sealer of `cache` in its `generation` (nil: the first format, see above).
    init(key: EncryptionKey, salt: [UInt8], cache: String, generation: [UInt8]?) throws(StoreError) {
        let name = Self.prefixed(Array(cache.utf8))
        place = name + (generation ?? [])
        isFirstFormat = generation == nil
        (keyTag, valueTag) = isFirstFormat ? (0x6B, 0x76) : (0x4B, 0x56)
        func derive(_ purpose: String) throws(StoreError) -> [UInt8] {
            try Crypto.hkdf(secret: key.bytes, salt: salt, info: Array("larder 1 \(purpose)".utf8) + [0] + name)
        }
        var lookupKey = try derive("lookup"), valueKey = try derive("values"), checkKey = try derive("check")
        defer {
            Crypto.wipe(&lookupKey)
            Crypto.wipe(&valueKey)
            Crypto.wipe(&checkKey)
        }
        lookup = try HMAC(key: lookupKey)
        values = try AESGCM(key: valueKey)
        check = Array(try HMAC(key: checkKey).mac(Array("larder key check".utf8)).prefix(Self.tokenCount))
    }

    /// What the `grp` column holds for `group`.
    func token(group: String) throws(StoreError) -> [UInt8] {
        if let token = groupTokens[group] { return token }
        let token = Array(try lookup.mac([0x67], Self.prefixed(Array(group.utf8))).prefix(Self.tokenCount))
        if groupTokens.count >= Self.groupTokensKept { groupTokens.removeAll(keepingCapacity: true) }
        groupTokens[group] = token
        return token
    }

    /// What the `grp` and `key` columns hold for `k`.
    func tokens(_ k: EntryKey) throws(StoreError) -> (group: [UInt8], key: [UInt8]) {
        let group = try token(group: k.group)
        var key = k.withGroupUTF8 { g in
            k.withKeyUTF8 { key in lookup.mac(Self.tagged(0x6B, length: g.count), g, key) }
        }
        key.removeLast(key.count - Self.tokenCount)
        return (group, key)
    }

    /// `k` sealed, for `sealed_key` in the row whose `grp` and `key` hold `tokens`.
    func seal(key k: EntryKey, tokens: (group: [UInt8], key: [UInt8])) throws(StoreError) -> [UInt8] {
        let plain = Self.prefixed(k.withGroupUTF8 { Array($0) }) + k.withKeyUTF8 { Array($0) }
        let associated = keyAssociated(tokens)
        return try plain.withUnsafeBufferPointer { (p) throws(StoreError) in try values.seal(p, associated: associated) }
    }

    /// The key a `sealed_key` holds, in the row whose `grp` and `key` hold `tokens`.
    func openKey(_ sealed: [UInt8], tokens: (group: [UInt8], key: [UInt8])) throws(AESGCM.Unauthentic) -> EntryKey {
        let plain = try values.open(sealed, associated: keyAssociated(tokens))
        guard plain.count >= 4 else { throw AESGCM.Unauthentic() }
        let n = Int(plain[0]) << 24 | Int(plain[1]) << 16 | Int(plain[2]) << 8 | Int(plain[3])
        guard n <= plain.count - 4 else { throw AESGCM.Unauthentic() }
        let k = plain.withUnsafeBufferPointer { p in
            EntryKey(group: UnsafeBufferPointer(rebasing: p[4..<4 + n]), key: UnsafeBufferPointer(rebasing: p[(4 + n)...]))
        }
        // The first format does not bind the row: its MACs must be the key's.
        if isFirstFormat {
            guard let t = try? self.tokens(k), t.group == tokens.group, t.key == tokens.key else { throw AESGCM.Unauthentic() }
        }
        return k
    }

    /// The associated data of a sealed key: the cache's place, and for a
    /// cache with a generation the row's MACs.
    private func keyAssociated(_ tokens: (group: [UInt8], key: [UInt8])) -> [UInt8] {
        isFirstFormat ? [keyTag] + place : [keyTag] + place + tokens.group + tokens.key
    }

    /// A value sealed for the entry `k` of kind `kind`.
    func seal(_ value: UnsafeBufferPointer<UInt8>, kind: Entry.Kind, for k: EntryKey) throws(StoreError) -> [UInt8] {
        try values.seal(value, associated: associated(kind, k))
    }

    /// The value sealed for the entry `k` of kind `kind`.
    func open(_ sealed: [UInt8], kind: Entry.Kind, for k: EntryKey) throws(AESGCM.Unauthentic) -> [UInt8] {
        try values.open(sealed, associated: associated(kind, k))
    }

    /// The associated data of a value: its kind, the cache and its
    /// generation, the group and the key, made in one buffer (a get builds
    /// it on every disk read).
    private func associated(_ kind: Entry.Kind, _ k: EntryKey) -> [UInt8] {
        k.withGroupUTF8 { g in
            k.withKeyUTF8 { key in
                var a: [UInt8] = []
                a.reserveCapacity(2 + place.count + 4 + g.count + key.count)
                a.append(valueTag)
                a.append(UInt8(kind.rawValue))
                a.append(contentsOf: place)
                a.append(contentsOf: Self.length(g.count))
                a.append(contentsOf: g)
                a.append(contentsOf: key)
                return a
            }
        }
    }

    /// A tag byte and a length, as one array.
    private static func tagged(_ tag: UInt8, length count: Int) -> [UInt8] {
        let n = UInt32(count)
        return [tag, UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)]
    }

    /// `bytes` after their length (4 bytes, big-endian): concatenated parts
    /// stay unambiguous ("ab" + "c" is not "a" + "bc").
    private static func prefixed(_ bytes: [UInt8]) -> [UInt8] {
        length(bytes.count) + bytes
    }

    private static func length(_ count: Int) -> [UInt8] {
        let n = UInt32(count)
        return [UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)]
    }
}
