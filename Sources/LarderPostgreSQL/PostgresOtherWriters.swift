import LarderCore

/// Other sidecars' commits to a store on PostgreSQL: every write transaction
/// counts itself in the one row of `commits` as its last write, and a
/// sidecar that finds the count moved by more than its own commits knows
/// another one committed — as SQLite's data_version tells one process of
/// another's.
///
/// The count is read once per burst of input (a round trip), and at the
/// start of each write transaction, in BEGIN's round trip. It is counted
/// last, in the COMMIT's round trip: taking the row's lock just before
/// COMMIT orders commits by the count without holding writers behind one
/// another for longer than a commit.
final class PostgresOtherWriters: OtherWriters {
    private unowned let database: PostgresSQLConnection
    /// The count when this sidecar last looked, or as its own last commit left it.
    private var seen: Int64 = 0
    /// The count the transaction about to commit took.
    private var taken: Int64?
    /// Set when a commit of this sidecar's found others committed since the last look.
    private var missed = false

    init(database: PostgresSQLConnection) {
        self.database = database
        database.queryAtBegin = Self.countSQL
    }

    private static let countSQL = "SELECT sequence FROM commits WHERE id = 1"

    func start() throws(StoreError) {
        seen = try count()
        missed = false
    }

    func stop() {}

    func committedSinceLastLook() throws(StoreError) -> Bool {
        let now: Int64
        if let read = database.takeReadAtBegin() { now = try Self.sequence(read) } else { now = try count() }
        guard now != seen || missed else { return false }
        seen = now
        missed = false
        return true
    }

    func transactionWillCommit() throws(StoreError) {
        let s = try database.statement("UPDATE commits SET sequence = sequence + 1 WHERE id = 1 RETURNING sequence")
        try s.runPipelined { row in self.taken = row?.int64(0) }
    }

    func transactionDidCommit() {
        guard let taken else { return }
        self.taken = nil
        // Anything between the last look and this commit was another sidecar's.
        if taken != seen + 1 { missed = true }
        seen = taken
    }

    private func count() throws(StoreError) -> Int64 {
        let s = try database.statement(Self.countSQL)
        defer { s.reset() }
        guard try s.step() else { throw Self.missingRow }
        return s.int64(0)
    }

    private static func sequence(_ read: PostgresResult) throws(StoreError) -> Int64 {
        guard read.rowCount == 1, let n = try read.int64(0, 0) else { throw missingRow }
        return n
    }

    private static let missingRow = StoreError.internalFailure("the store's commits row is missing")
}
