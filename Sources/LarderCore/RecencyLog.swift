import LarderStorage

/// Recency noted by reads of disk rows, written lazily with other writes (a
/// read must not cost a write) in the transaction before it commits.
final class RecencyLog: TransactionObserver {
    private unowned let transactions: Transactions
    private let database: any SQLConnection
    /// Row id → its use, since the last write of recency.
    private var pending: [Int64: Int64] = [:]
    /// The latest use given out (or seen in the store).
    private var last: Int64 = 0
    /// Pending uses past this many are written at once, not at the commit.
    private static let most = 50_000

    init(transactions: Transactions) {
        self.transactions = transactions
        database = transactions.database
        transactions.observe(self)
    }

    var isEmpty: Bool { pending.isEmpty }

    func next() -> Int64 {
        last += 1
        return last
    }

    func noteUsed(atLeast used: Int64) {
        last = max(last, used)
    }

    func noteUse(of diskID: Int64) {
        guard diskID != 0 else { return }
        pending[diskID] = next()
        // A write that fails dooms the transaction, whose commit then reports
        // it; the read that noted the use is answered all the same.
        if pending.count >= Self.most { try? write() }
    }

    func forget(_ diskID: Int64) {
        pending[diskID] = nil
    }

    /// Persists the recency noted, inside the current write transaction
    /// (a row's last use is no news to other writers).
    func write() throws(StoreError) {
        guard !pending.isEmpty else { return }
        try transactions.begin(changing: .entries)
        let s = try database.statement("UPDATE entries SET used = ? WHERE id = ?")
        for (id, used) in pending {
            s.bind(1, used).bind(2, id)
            try s.runPipelined(then: nil)
        }
        pending = [:]
    }

    func transactionWillCommit() throws(StoreError) { try write() }
    func transactionDidRollBack() { pending = [:] }
}
