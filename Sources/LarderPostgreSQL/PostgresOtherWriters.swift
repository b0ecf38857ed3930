import LarderStorage

/// How a sidecar learns of other sidecars' commits before it answers from
/// its memory tiers (`--pg-coherence`). Write transactions always learn of
/// them first, under the writer lock: limits and migrations hold in every mode.
public enum PostgresCoherence: String, Sendable, CaseIterable {
    /// Each burst of input first reads the commits count (one round trip,
    /// and one more to read what changed when it moved): never stale after
    /// another sidecar's acknowledged write.
    case strict
    /// Other sidecars' commits are notified (LISTEN/NOTIFY); each burst
    /// first looks at what has arrived, without a round trip. Stale for at
    /// most the notification's delay. Where the server cannot LISTEN, polls.
    case notify
    /// As `notify`, for servers and proxies that do not deliver
    /// notifications (CockroachDB, YugabyteDB, PgBouncer's transaction
    /// pooling): the count is read at most once per `pollInterval`.
    case poll

    /// How stale `poll` may be: the count is read again by the first burst after this.
    public static let pollInterval: Duration = .milliseconds(50)
}

/// Other sidecars' commits to a store on PostgreSQL. Every write
/// transaction counts itself in the one row of `commits` and writes what it
/// changed in `changes` under that number (`ChangeRecord`: keys of cache
/// entries, or everything), then NOTIFYs the number; a sidecar that finds
/// the count moved by more than its own commits reads the records since its
/// last look, and its caches drop just the keys named.
///
/// The count and records are read at the start of each write transaction,
/// in BEGIN's round trip, and per burst of input as `coherence` says. They
/// are written last, in the COMMIT's round trip: taking the row's lock
/// just before COMMIT orders commits by the count without holding writers
/// behind one another for longer than a commit. Records older than
/// `kept` commits are deleted as new ones come; a sidecar that has not
/// looked for longer forgets everything it holds instead.
final class PostgresOtherWriters: OtherWriters {
    private unowned let database: PostgresSQLConnection
    /// As asked, or `poll` where notifications could not be listened to.
    private(set) var coherence: PostgresCoherence
    /// The channel commits are notified on: one per store (database and schema).
    let channel: String
    /// The count at the last look.
    private var seen: Int64 = 0 {
        didSet { database.queryAtBegin = Self.changes(after: String(seen)) }
    }
    /// This sidecar's commits since the last look: not news.
    private var own: Set<Int64> = []
    /// The number the transaction about to commit took.
    private var taken: Int64?
    private var lastLook = ContinuousClock.now
    /// The session the last look was made on (`PostgresConnection.sessions`).
    private var sessionAtLastLook = 0

    static let kept: Int64 = 10_000

    var recordsChanges: Bool { true }

    init(database: PostgresSQLConnection, coherence: PostgresCoherence, channel: String) {
        self.database = database
        self.coherence = coherence
        self.channel = channel
        database.queryAtBegin = Self.changes(after: String(seen))
    }

    /// The count, and the records after `seen` (a number, or a parameter)
    /// up to it; with none, one row whose record columns are NULL.
    private static func changes(after seen: String) -> String {
        """
        SELECT c.sequence, ch.sequence, ch.keys FROM commits AS c
        LEFT JOIN changes AS ch ON ch.sequence > \(seen) AND ch.sequence <= c.sequence
        WHERE c.id = 1 ORDER BY ch.sequence
        """
    }

    func start() throws(StoreError) {
        seen = try count()
        own = []
        lastLook = .now
        sessionAtLastLook = database.connection.sessions
        guard coherence == .notify else { return }
        do {
            try database.connection.listen(channel)
        } catch {
            // CockroachDB and YugabyteDB have no LISTEN.
            if case .storageUnavailable = error { throw error }
            coherence = .poll
        }
    }

    func stop() {}

    func changesSinceLastLook() throws(StoreError) -> ForeignChanges? {
        if let read = database.takeReadAtBegin() { return try changes(in: read) }
        do {
            return try lookOutsideATransaction()
        } catch {
            // Not knowing what others did, nothing held from the store may
            // be trusted: reads go to the database, and fail there while it
            // cannot be reached.
            return .unknown
        }
    }

    private func lookOutsideATransaction() throws(StoreError) -> ForeignChanges? {
        // A look never waits for a connection attempt: the request that
        // looks may need no database (a memory-only cache, rpc.discover).
        try database.connection.connect(waiting: .zero)
        // Notifications sent while a session was lost never come: a new session looks.
        let sameSession = database.connection.sessions == sessionAtLastLook
        switch coherence {
        case .strict:
            break
        case .notify:
            guard try notifiedNews() || !sameSession else { return nil }
        case .poll:
            guard ContinuousClock.now - lastLook >= PostgresCoherence.pollInterval || !sameSession else { return nil }
        }
        let s = try database.statement(Self.changes(after: "?"))
        defer { s.reset() }
        s.bind(1, seen)
        var rows: [(now: Int64, sequence: Int64?, keys: [UInt8]?)] = []
        while try s.step() { rows.append((try s.int64(0), s.isNull(1) ? nil : try s.int64(1), s.isNull(2) ? nil : try s.blob(2))) }
        return try changes(in: rows)
    }

    /// Whether a commit not this sidecar's was notified since the last look.
    private func notifiedNews() throws(StoreError) -> Bool {
        var news = false
        for n in try database.connection.notifications() where n.channel == channel {
            guard let sequence = Int64(n.payload) else { news = true; continue }
            if sequence > seen && !own.contains(sequence) { news = true }
        }
        return news
    }

    private func changes(in read: PostgresResult) throws(StoreError) -> ForeignChanges? {
        var rows: [(now: Int64, sequence: Int64?, keys: [UInt8]?)] = []
        for r in 0..<read.rowCount {
            guard let now = try read.int64(r, 0) else { throw Self.missingRow }
            rows.append((now, try read.int64(r, 1), read.isNull(r, 2) ? nil : try read.bytes(r, 2)))
        }
        return try changes(in: rows)
    }

    /// What the records read say others changed since the last look; nil for nothing.
    private func changes(in rows: [(now: Int64, sequence: Int64?, keys: [UInt8]?)]) throws(StoreError) -> ForeignChanges? {
        guard let now = rows.first?.now else { throw Self.missingRow }
        lastLook = .now
        sessionAtLastLook = database.connection.sessions
        defer {
            seen = now
            own = []
        }
        guard now != seen else { return nil }
        // A count gone back is another store under the same name.
        guard now > seen else { return .everything }
        var records: [[UInt8]?] = []
        var found: Int64 = 0
        for row in rows {
            guard let sequence = row.sequence else { continue }
            found += 1
            if !own.contains(sequence) { records.append(row.keys) }
        }
        // Records deleted since (the sidecar looked too long ago) could have said anything.
        if found < now - seen { return .everything }
        return records.isEmpty ? nil : .recorded(records)
    }

    func transactionWillCommit(_ changes: [UInt8]?) throws(StoreError) {
        let s = try database.statement("""
            WITH c AS (UPDATE commits SET sequence = sequence + 1 WHERE id = 1 RETURNING sequence),
                r AS (INSERT INTO changes (sequence, keys) SELECT sequence, CAST(? AS bytea) FROM c),
                t AS (DELETE FROM changes WHERE sequence <= (SELECT sequence FROM c) - \(Self.kept))
            SELECT sequence, pg_notify(CAST(? AS text), CAST(sequence AS text)) FROM c
            """)
        if let changes { s.bind(1, blob: changes) } else { s.bindNull(1) }
        s.bind(2, channel)
        try s.runPipelined { (row) throws(StoreError) in self.taken = try row?.int64(0) }
    }

    func transactionDidCommit() {
        guard let taken else { return }
        self.taken = nil
        own.insert(taken)
    }

    private func count() throws(StoreError) -> Int64 {
        let s = try database.statement("SELECT sequence FROM commits WHERE id = 1")
        defer { s.reset() }
        guard try s.step() else { throw Self.missingRow }
        return try s.int64(0)
    }

    private static let missingRow = StoreError.internalFailure("the store's commits row is missing")
}
