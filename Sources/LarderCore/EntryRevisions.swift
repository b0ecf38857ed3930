import LarderStorage

/// Where entries' revisions come from (SPEC 6.14): a number that changes on
/// every write of an entry and is never given twice in the store, whatever
/// process or sidecar writes. The store hands them out in blocks of
/// `blockSize`, so that a write costs no statement of its own for its
/// revision: one in `blockSize` writes reserves the next block. On SQLite
/// the block is reserved by a counter row updated in the write transaction
/// (which holds the store's write lock); if that transaction, or the
/// savepoint it was reserved under, is rolled back, the counter goes back
/// and the block is dropped here too, so that no number is given out twice.
/// On PostgreSQL it comes from a sequence, which never gives a number twice.
///
/// Revisions increase within one process; between processes they are not
/// ordered, only unique.
final class EntryRevisions: TransactionObserver {
    /// How many revisions one reservation takes (the PostgreSQL sequence's increment).
    static let blockSize = 1024

    private let database: any SQLConnection
    /// The next revision to give, and the end of the block it is in.
    private var next: Int64 = 0
    private var end: Int64 = 0
    /// The block was reserved in the open transaction: rolled back, it goes.
    private var reservedInTransaction = false
    /// Memory-only caches' revisions, which die with the process (SPEC 6.14).
    private var local: Int64 = 0

    init(transactions: Transactions) {
        database = transactions.database
        transactions.observe(self)
    }

    /// The next revision for a persistent cache's entry; called in the write transaction.
    func nextStored() throws(StoreError) -> Int64 {
        if next == end { try reserve() }
        defer { next += 1 }
        return next
    }

    /// The next revision for a memory-only cache's entry.
    func nextLocal() -> Int64 {
        local += 1
        return local
    }

    /// A memory-only cache took in an entry of revision `revision`: its
    /// later revisions must not repeat it.
    func noteLocal(atLeast revision: Int64) {
        local = max(local, revision)
    }

    private func reserve() throws(StoreError) {
        let first = try database.integer(database.dialect.engine == .sqlite
            ? "UPDATE entry_revisions SET next = next + \(Self.blockSize) WHERE id = 1 RETURNING next - \(Self.blockSize)"
            : "SELECT nextval('entry_revisions')")
        guard first > 0 else { throw .internalFailure("the store has no counter of entry revisions") }
        (next, end) = (first, first + Int64(Self.blockSize))
        reservedInTransaction = database.dialect.engine == .sqlite
    }

    func transactionDidCommit() { reservedInTransaction = false }

    func transactionDidRollBack() { dropBlockReservedInTransaction() }

    func savepointDidRollBack() { dropBlockReservedInTransaction() }

    private func dropBlockReservedInTransaction() {
        if reservedInTransaction { (next, end) = (0, 0) }
        reservedInTransaction = false
    }
}
