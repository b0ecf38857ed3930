import LarderStorage

/// What write transactions changed, as far as another writer needs to know
/// to keep what it holds from the store (memory tiers, totals, definitions)
/// true: the keys of cache entries, the entries of whole caches, or
/// anything at all. A store on PostgreSQL keeps one per commit for the
/// other sidecars (`OtherWriters`); SQLite tells other processes only that
/// something changed.
///
/// A write records keys only when it says so (`Store.beginWrite(changing:)`);
/// any other write transaction changes "everything": a write that forgets
/// to say what it changed costs other sidecars their memory tiers, never
/// stale answers.
public struct ChangeRecord: Sendable, Equatable {
    /// Anything may have changed.
    public private(set) var everything = false
    /// Changed entries, by cache id.
    public private(set) var keys: [Int64: Set<EntryKey>] = [:]
    /// Caches any of whose entries may have changed (an encrypted cache's
    /// keys are not written down in clear; a group cleared).
    public private(set) var wholeCaches: Set<Int64> = []
    private var noted = 0

    /// Past this many keys a transaction records "everything": a reader
    /// would drop most of its tiers anyway, and the record stays small.
    public static let mostKeys = 10_000

    public init() {}

    public static var all: ChangeRecord {
        var r = ChangeRecord()
        r.noteEverything()
        return r
    }

    /// Set when the other writers could not be asked (their server cannot
    /// be reached): anything may have changed, and the writer is not told
    /// what.
    public private(set) var isUnknown = false

    /// What others changed when they cannot be asked: everything, as far
    /// as anything held from the store goes.
    public static var unknown: ChangeRecord {
        var r = all
        r.isUnknown = true
        return r
    }

    public var isEmpty: Bool { !everything && keys.isEmpty && wholeCaches.isEmpty }

    public mutating func noteEverything() {
        everything = true
        keys = [:]
        wholeCaches = []
    }

    public mutating func note(cache: Int64, key: EntryKey) {
        guard !everything, !wholeCaches.contains(cache) else { return }
        if keys[cache, default: []].insert(key).inserted { noted += 1 }
        if noted > Self.mostKeys { noteEverything() }
    }

    public mutating func note(wholeCache cache: Int64) {
        guard !everything else { return }
        if let gone = keys.removeValue(forKey: cache) { noted -= gone.count }
        wholeCaches.insert(cache)
    }

    public mutating func merge(_ other: ChangeRecord) {
        if other.everything { return noteEverything() }
        for cache in other.wholeCaches { note(wholeCache: cache) }
        for (cache, keys) in other.keys { for k in keys { note(cache: cache, key: k) } }
    }

    /// Whether the entry `key` of `cache` may have changed.
    public func touches(cache: Int64) -> Bool {
        everything || wholeCaches.contains(cache) || keys[cache] != nil
    }

    // MARK: - As bytes

    /// The record as bytes; nil for "everything". Per change: the cache id
    /// (8 bytes, big-endian), then 0 and the group's and key's UTF-8, each
    /// after its length (4 bytes, big-endian), or 1 for the whole cache.
    public func encoded() -> [UInt8]? {
        guard !everything else { return nil }
        var out: [UInt8] = []
        func append(_ n: UInt64, bytes: Int) {
            for shift in stride(from: (bytes - 1) * 8, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: n >> UInt64(shift))) }
        }
        for cache in wholeCaches.sorted() {
            append(UInt64(bitPattern: cache), bytes: 8)
            out.append(1)
        }
        for (cache, keys) in keys.sorted(by: { $0.key < $1.key }) {
            for k in keys {
                append(UInt64(bitPattern: cache), bytes: 8)
                out.append(0)
                k.withGroupUTF8 { append(UInt64($0.count), bytes: 4); out += $0 }
                k.withKeyUTF8 { append(UInt64($0.count), bytes: 4); out += $0 }
            }
        }
        return out
    }

    /// A record read back from `encoded()`'s bytes (nil: everything); one
    /// that does not read as such is "everything" too.
    public init(encoded bytes: [UInt8]?) {
        guard let bytes else {
            noteEverything()
            return
        }
        var at = 0
        func read(_ count: Int) -> UInt64? {
            guard at + count <= bytes.count else { return nil }
            defer { at += count }
            return bytes[at..<at + count].reduce(0) { $0 << 8 | UInt64($1) }
        }
        func text() -> [UInt8]? {
            guard let n = read(4).map(Int.init), at + n <= bytes.count else { return nil }
            defer { at += n }
            return Array(bytes[at..<at + n])
        }
        while at < bytes.count {
            guard let cache = read(8).map({ Int64(bitPattern: $0) }), let kind = read(1) else {
                noteEverything()
                return
            }
            if kind == 1 {
                note(wholeCache: cache)
                continue
            }
            guard kind == 0, let group = text(), let key = text() else {
                noteEverything()
                return
            }
            let k = group.withUnsafeBufferPointer { g in key.withUnsafeBufferPointer { EntryKey(group: g, key: $0) } }
            note(cache: cache, key: k)
        }
    }
}

extension ChangeRecord {
    /// What other writers' commits changed, as the engine handed them back;
    /// nil when they changed nothing.
    init?(_ found: ForeignChanges) {
        switch found {
        case .everything: self = .all
        case .unknown: self = .unknown
        case .recorded(let records):
            var merged = ChangeRecord()
            for encoded in records { merged.merge(ChangeRecord(encoded: encoded)) }
            guard !merged.isEmpty else { return nil }
            self = merged
        }
    }
}
