import LarderStorage

/// A lease on a name as the store holds it.
public struct Lease: Equatable, Sendable {
    public let name: String
    /// The lease's fencing token.
    public let token: Int64
    /// When it expires: milliseconds of the store's clock.
    public let expiresAt: Int64
    /// Whether this session holds it.
    public let heldHere: Bool
}

/// What asking for a lease came to.
public enum LockAcquisition: Equatable, Sendable {
    /// The lease is this session's, under a new fencing token, until `expiresAt`.
    case acquired(token: Int64, expiresAt: Int64)
    /// Another holder (or this session, under `token`) has it until `expiresAt`.
    case held(token: Int64, expiresAt: Int64, heldHere: Bool)
}

/// Leases on names, shared by every process and sidecar on the store: at
/// most one live lease per name, each under a fencing token greater than
/// every token the name had before (Kleppmann's fencing), whoever held it.
///
/// Every change runs in the store's write transaction, which processes on a
/// store directory (SQLite's write lock) and sidecars on PostgreSQL (the
/// writer's advisory lock, `Transactions.begin`) take one at a time: the row
/// is read and written by one writer at a time without a lock of its own.
/// A name's row outlives its lease, so that its token only ever grows;
/// expiry is decided by the store's clock, as an entry's is.
final class LockTable {
    private unowned let transactions: Transactions
    private let database: any SQLConnection
    private let clock: Clock
    /// This session's holder id, written into the rows of its leases: random,
    /// so that another process's leases are never taken for this one's. Not a
    /// secret: the token is what proves a lease.
    let holder: String
    /// Names this session acquired, whose leases it gives back as it closes.
    private var acquired: Set<String> = []
    /// Whether this session took a key's fetch lease (`takeFetchLease`), which it gives back as it closes.
    private var fetchedHere = false

    init(transactions: Transactions, clock: Clock) {
        self.transactions = transactions
        database = transactions.database
        self.clock = clock
        holder = (0..<2).map { _ in
            let hex = String(UInt64.random(in: 0...UInt64.max), radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }

    /// A name's row: its last token, and its holder and expiry while a lease
    /// is (or was, until it expired) held.
    private struct Row {
        let token: Int64
        let holder: String?
        let expiresAt: Int64?

        /// The live lease on the name at `now`, if any.
        func lease(at now: Int64) -> (holder: String, expiresAt: Int64)? {
            guard let holder, let expiresAt, expiresAt > now else { return nil }
            return (holder, expiresAt)
        }
    }

    /// The statements every lease runs, kept by number as the cache's hot
    /// ones are (`CacheSQL.Hot`), after theirs.
    private enum Statement: Int {
        case row = 64, write, release

        var sql: String {
            switch self {
            case .row: "SELECT token, holder, expires_at FROM locks WHERE name = ?"
            case .write: """
                INSERT INTO locks (name, token, holder, expires_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (name) DO UPDATE SET token = excluded.token, holder = excluded.holder, expires_at = excluded.expires_at
                """
            case .release: "UPDATE locks SET holder = NULL, expires_at = NULL WHERE name = ? AND token = ? AND holder IS NOT NULL AND expires_at > ?"
            }
        }
    }

    private func statement(_ s: Statement) throws(StoreError) -> any SQLStatement {
        try database.statement(number: s.rawValue) { s.sql }
    }

    private func row(_ name: String) throws(StoreError) -> Row? {
        let s = try statement(.row)
        defer { s.reset() }
        s.bind(1, name)
        guard try s.step() else { return nil }
        return Row(token: try s.int64(0), holder: s.isNull(1) ? nil : try s.string(1),
                   expiresAt: s.isNull(2) ? nil : try s.int64(2))
    }

    private func write(_ name: String, token: Int64, holder: String?, expiresAt: Int64?) throws(StoreError) {
        let s = try statement(.write)
        s.bind(1, name).bind(2, token)
        if let holder { s.bind(3, holder) } else { s.bindNull(3) }
        if let expiresAt { s.bind(4, expiresAt) } else { s.bindNull(4) }
        try s.run()
    }

    /// Takes the lease on `name` for `ttl` milliseconds, unless a live one is held (by anyone).
    func acquire(_ name: String, ttl: Int64) throws(StoreError) -> LockAcquisition {
        try transactions.begin(changing: .entries)
        let now = clock.now
        let current = try row(name)
        if let lease = current?.lease(at: now) {
            return .held(token: current!.token, expiresAt: lease.expiresAt, heldHere: lease.holder == holder)
        }
        let token = (current?.token ?? 0) + 1
        let expiresAt = now + ttl
        try write(name, token: token, holder: holder, expiresAt: expiresAt)
        acquired.insert(name)
        return .acquired(token: token, expiresAt: expiresAt)
    }

    /// Extends the live lease under `token` to `ttl` milliseconds from now; returns its new expiry.
    func renew(_ name: String, token: Int64, ttl: Int64) throws(StoreError) -> Int64 {
        try transactions.begin(changing: .entries)
        let now = clock.now
        let current = try row(name)
        guard let current, current.token == token, let lease = current.lease(at: now) else {
            throw .lockNotHeld(name: name, token: Self.liveToken(current, at: now))
        }
        let expiresAt = now + ttl
        try write(name, token: token, holder: lease.holder, expiresAt: expiresAt)
        return expiresAt
    }

    /// Gives back the lease under `token`: true if it was live, false if it
    /// had expired or been released already and nobody took the name since.
    func release(_ name: String, token: Int64) throws(StoreError) -> Bool {
        try transactions.begin(changing: .entries)
        let now = clock.now
        // The live lease under `token` is given back by one statement; only
        // where there is none is the row read, to say why.
        let s = try statement(.release)
        s.bind(1, name).bind(2, token).bind(3, now)
        try s.run()
        if database.changes == 1 { return true }
        let current = try row(name)
        guard let current, current.token == token else {
            throw .lockNotHeld(name: name, token: Self.liveToken(current, at: now))
        }
        // Expired, or given back already (a live one would have been released above).
        return false
    }

    private static func liveToken(_ row: Row?, at now: Int64) -> Int64? {
        guard let row, row.lease(at: now) != nil else { return nil }
        return row.token
    }

    /// The live leases whose names begin with `prefix`, in byte order.
    func list(prefix: String) throws(StoreError) -> [Lease] {
        let s = try database.statement("""
            SELECT name, token, holder, expires_at FROM locks
            WHERE name >= ? AND holder IS NOT NULL AND expires_at > ? ORDER BY name
            """)
        defer { s.reset() }
        s.bind(1, prefix).bind(2, clock.now)
        var leases: [Lease] = []
        while try s.step() {
            let name = try s.string(0)
            guard name.utf8.starts(with: prefix.utf8) else { break }
            leases.append(Lease(name: name, token: try s.int64(1), expiresAt: try s.int64(3), heldHere: try s.string(2) == holder))
        }
        return leases
    }

    /// Whether `name` has no live lease now: read outside any write, so that
    /// waiting costs no writer's lock until the name looks free.
    func isFree(_ name: String) throws(StoreError) -> Bool {
        try row(name)?.lease(at: clock.now) == nil
    }

    /// Gives back every lease this session holds, in the open write
    /// transaction: when the session ends, so that waiters elsewhere need not
    /// wait for the leases to expire.
    func releaseHeld() throws(StoreError) {
        if !acquired.isEmpty {
            try transactions.begin(changing: .entries)
            let s = try database.statement("UPDATE locks SET holder = NULL, expires_at = NULL WHERE holder = ?")
            s.bind(1, holder)
            try s.run()
            acquired = []
        }
        if fetchedHere {
            try transactions.begin(changing: .entries)
            let s = try database.statement("DELETE FROM fetch_leases WHERE holder = ?")
            s.bind(1, holder)
            try s.run()
            fetchedHere = false
        }
    }

    // MARK: - Fetch leases

    // A key's fetch lease (`cache.getOrFetch` with `shared`, SPEC 9.44) is a
    // row of `fetch_leases`, a table of its own: a user's lock names are any
    // text, so no prefix of theirs could be kept free for keys, and a key
    // (bytes, U+0000 included) is not always text. The key is written as
    // the entries table writes it (`DiskTier.bind`): an encrypted cache's
    // keys are MACs there too. A fetch lease needs no fencing token: what
    // a fetch writes is an entry, whose revision tells writes apart.

    /// The holder and expiry of `k`'s fetch lease row, live or not.
    private func fetchLeaseRow(_ k: EntryKey, in disk: DiskTier) throws(StoreError) -> (holder: String, expiresAt: Int64)? {
        let s = try database.statement("SELECT holder, expires_at FROM fetch_leases WHERE cache = ? AND grp = ? AND key = ?")
        defer { s.reset() }
        s.bind(1, disk.cacheID)
        try disk.bind(k, to: s, from: 2)
        guard try s.step() else { return nil }
        return (try s.string(0), try s.int64(1))
    }

    /// Takes `k`'s fetch lease for `ttl` milliseconds, unless another
    /// session holds a live one: then returns when that expires (by the
    /// store's clock).
    func takeFetchLease(_ k: EntryKey, in disk: DiskTier, ttl: Int64) throws(StoreError) -> Int64? {
        try transactions.begin(changing: .entries)
        let now = clock.now
        if let row = try fetchLeaseRow(k, in: disk), row.holder != holder, row.expiresAt > now { return row.expiresAt }
        let s = try database.statement("""
            INSERT INTO fetch_leases (cache, grp, key, holder, expires_at) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (cache, grp, key) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
            """)
        s.bind(1, disk.cacheID)
        try disk.bind(k, to: s, from: 2)
        s.bind(4, holder).bind(5, now + ttl)
        try s.run()
        fetchedHere = true
        return nil
    }

    /// Extends this session's fetch lease on `k` to `ttl` milliseconds from now.
    func renewFetchLease(_ k: EntryKey, in disk: DiskTier, ttl: Int64) throws(StoreError) {
        try transactions.begin(changing: .entries)
        let s = try database.statement("UPDATE fetch_leases SET expires_at = ? WHERE cache = ? AND grp = ? AND key = ? AND holder = ?")
        s.bind(1, clock.now + ttl).bind(2, disk.cacheID)
        try disk.bind(k, to: s, from: 3)
        s.bind(5, holder)
        try s.run()
    }

    /// Gives back this session's fetch lease on `k`. The commit names the
    /// key as changed, so that sidecars on PostgreSQL waiting for it learn
    /// of the release as of a write (SQLite tells of any commit).
    func releaseFetchLease(_ k: EntryKey, in disk: DiskTier) throws(StoreError) {
        try transactions.begin(changing: .entries)
        let s = try database.statement("DELETE FROM fetch_leases WHERE cache = ? AND grp = ? AND key = ? AND holder = ?")
        s.bind(1, disk.cacheID)
        try disk.bind(k, to: s, from: 2)
        s.bind(4, holder)
        try s.run()
        transactions.noteChange(cache: disk.cacheID, key: k)
    }

    /// When another session's live fetch lease on `k` expires, or nil when
    /// none is held by another: read outside any write, as `isFree` reads.
    func fetchLeaseHeldElsewhere(_ k: EntryKey, in disk: DiskTier) throws(StoreError) -> Int64? {
        guard let row = try fetchLeaseRow(k, in: disk), row.holder != holder, row.expiresAt > clock.now else { return nil }
        return row.expiresAt
    }
}
