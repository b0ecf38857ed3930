import LarderCore

/// Other sidecars' commits to a store on PostgreSQL: every write transaction
/// counts itself in the one row of `commits` as its last write, and a
/// sidecar that finds the count moved by more than its own commits knows
/// another one committed — as SQLite's data_version tells one process of
/// another's.
///
/// The count is read once per burst of input and at the start of each write
/// transaction (one round trip each). Taking the row's lock last, just
/// before COMMIT, orders commits by the count without holding writers
/// behind one another for longer than a commit.
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
    }

    func start() throws(StoreError) {
        seen = try count()
        missed = false
    }

    func stop() {}

    func committedSinceLastLook() throws(StoreError) -> Bool {
        let now = try count()
        guard now != seen || missed else { return false }
        seen = now
        missed = false
        return true
    }

    func transactionWillCommit() throws(StoreError) {
        let s = try database.statement("UPDATE commits SET sequence = sequence + 1 WHERE id = 1 RETURNING sequence")
        defer { s.reset() }
        guard try s.step() else { throw .internalFailure("the store's commits row is missing") }
        taken = s.int64(0)
    }

    func transactionDidCommit() {
        guard let taken else { return }
        self.taken = nil
        // Anything between the last look and this commit was another sidecar's.
        if taken != seen + 1 { missed = true }
        seen = taken
    }

    private func count() throws(StoreError) -> Int64 {
        let s = try database.statement("SELECT sequence FROM commits WHERE id = 1")
        defer { s.reset() }
        guard try s.step() else { throw .internalFailure("the store's commits row is missing") }
        return s.int64(0)
    }
}
