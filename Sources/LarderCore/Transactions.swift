import LarderStorage

/// State derived from the store's tables — a memory tier, a cache of
/// definitions, recency waiting to be written, batches applied but not yet
/// committed — that must follow what becomes of the transaction that changed
/// them. Each component handles its own commit and rollback, as in GRDB's
/// `TransactionObserver`: the transaction engine knows none of them by name,
/// and a new one cannot be forgotten by a function that must list them all.
protocol TransactionObserver: AnyObject {
    /// The transaction is about to commit: last writes go in it here. A
    /// throw rolls the whole transaction back.
    func transactionWillCommit() throws(StoreError)
    /// Everything written since the last commit is durable.
    func transactionDidCommit()
    /// Everything written since the last commit is undone.
    func transactionDidRollBack()
    /// What was written under a savepoint (`Transactions.atomically`) is undone.
    func savepointDidRollBack()
    /// Another process committed: what `changes` names may have changed meanwhile.
    func storeChanged(elsewhere changes: ChangeRecord)
}

extension TransactionObserver {
    func transactionWillCommit() throws(StoreError) {}
    func transactionDidCommit() {}
    func transactionDidRollBack() {}
    func savepointDidRollBack() {}
    /// Most state is stale after another process's commit as after a
    /// rollback, unless that changed cache entries only.
    func storeChanged(elsewhere changes: ChangeRecord) {
        if changes.everything { transactionDidRollBack() }
    }
}

/// What a write changes, for `Transactions.begin(changing:)`.
public enum ChangeScope: Sendable {
    /// Cache entries, whose keys the writer notes itself
    /// (`Transactions.noteChange`), or rows no writer holds anything of in
    /// memory (entity records, a row's last use).
    case entries
    /// Anything: other writers forget all they hold from the store.
    case everything
}

/// The store's write transactions: one open from the first write of a burst
/// to its commit (group commit), savepoints inside it, the rollback of
/// everything when anything fails, and the notice of other processes'
/// commits, each reported to the registered observers.
final class Transactions {
    let database: any SQLConnection
    /// Store-wide state only, a few of them: every commit tells them all.
    /// Caches follow through one of them (`LoadedCaches`), so that what a
    /// commit costs does not grow with the caches loaded. Held strongly, and
    /// removed by `stopObserving`: a weak reference would give each a side
    /// table, and each retain and release of it would take the runtime's
    /// slow path (for a cache, about 220 instructions more per memory hit,
    /// measured with callgrind).
    private var observers: [TransactionObserver] = []

    /// How other writers' commits are noticed; nil when nobody else can write
    /// (a private in-memory store).
    let otherWriters: (any OtherWriters)?

    init(database: any SQLConnection, otherWriters: (any OtherWriters)?) {
        self.database = database
        self.otherWriters = otherWriters
    }

    /// Starts following other writers' commits from now on.
    func startWatching() throws(StoreError) {
        try otherWriters?.start()
    }

    func stopWatching() {
        otherWriters?.stop()
    }

    // MARK: - Observers

    // Observers are told in the order they were registered. The loops that
    // tell them iterate a copy of the array (a value), so an observer may
    // register another while it is told.
    //
    // An observer is store-wide state, registered by the subsystem that owns
    // it when that is made (`Store.subsystems`), and kept for the store's
    // life: held strongly (see `observers`), so it must not hold the
    // transactions strongly in turn. A cache is never one: it follows through
    // `LoadedCaches`, and dropping it (`CacheRegistry.drop`) removes it from
    // there. Only tests stop observing.
    func observe(_ observer: TransactionObserver) {
        observers.append(observer)
    }

    func stopObserving(_ observer: TransactionObserver) {
        observers.removeAll { $0 === observer }
    }

    /// How many observers are registered (for tests: as many however many caches are loaded).
    var observerCount: Int { observers.count }

    // MARK: - Transactions

    /// What the open write transaction changed, for other writers.
    private(set) var changes = ChangeRecord()

    /// Opens the write transaction that collects every write until
    /// `commit`, or joins it, for a write that changes `scope`.
    func begin(changing scope: ChangeScope = .everything) throws(StoreError) {
        if scope == .everything && !changes.everything { changes.noteEverything() }
        if !requestWrites { noteFirstWriteOfRequest() }
        guard !database.isInTransaction else { return }
        try database.begin()
        // Other processes' commits were last looked for at the start of the
        // burst; one may have landed between then and this lock. What this
        // transaction writes is decided from what the observers hold (above
        // all, whether something must be created), so it must be the store
        // as it is now: from here on nobody else can commit until this
        // transaction ends.
        try catchUpWithOtherProcesses()
    }

    /// Runs `body` so that its writes happen entirely or not at all.
    func atomically(changing scope: ChangeScope = .everything, _ body: () throws(StoreError) -> Void) throws(StoreError) {
        try begin(changing: scope)
        try database.savepoint("batch")
        let rowsBefore = database.rowsChanged
        do {
            try body()
            try database.release(savepoint: "batch")
        } catch {
            rowsUndoneInRequest += database.rowsChanged - rowsBefore
            database.rollback(toSavepoint: "batch")
            for o in observers { o.savepointDidRollBack() }
            throw error
        }
    }

    // MARK: - Requests

    /// Whether the current request has joined the write transaction; then
    /// the rows changed and the statement errors seen before its first
    /// write, and how many rows it changed that its savepoints undid since.
    /// Noted at its first write rather than when it begins: a read pays
    /// nothing (reading SQLite's count of changes takes its mutex).
    private var requestWrites = false
    private var rowsChangedBeforeRequest: Int64 = 0
    private var statementFailuresBeforeRequest = 0
    private var rowsUndoneInRequest: Int64 = 0
    /// A request's statement error that could not be undone alone, which
    /// dooms the transaction as a failed commit would.
    private var requestFailure: StoreError?

    /// A request begins: what fails from here on is its own.
    func beginRequest() { requestWrites = false }

    private func noteFirstWriteOfRequest() {
        requestWrites = true
        rowsChangedBeforeRequest = database.rowsChanged
        statementFailuresBeforeRequest = database.statementFailures
        rowsUndoneInRequest = 0
    }

    /// The current request failed. A statement of it that broke a
    /// constraint (or was refused for a value too long) was undone by the
    /// database alone, and the transaction goes on: the other requests of the
    /// burst commit. But if the request had changed rows before that
    /// statement, outside a savepoint that took them back, they would commit
    /// without the rest of it: then the transaction is doomed, as by any
    /// other storage error, and every request waiting for it fails. A
    /// request that never joined the transaction changed nothing in it.
    func requestFailed() {
        guard requestWrites, requestFailure == nil, database.isInTransaction,
              database.statementFailures != statementFailuresBeforeRequest,
              let error = database.lastStatementFailure else { return }
        if database.rowsChanged - rowsChangedBeforeRequest - rowsUndoneInRequest != 0 { requestFailure = error }
    }

    /// Notes a cache entry changed by the open transaction (see `ChangeRecord`).
    func noteChange(cache: Int64, key: EntryKey) { changes.note(cache: cache, key: key) }
    func noteChange(wholeCache cache: Int64) { changes.note(wholeCache: cache) }

    /// True when writes wait for `commit`, or a failure waits to be reported by it.
    var hasPendingWrites: Bool { database.isInTransaction || failed }

    /// True when SQLite reported an error since the last commit: the writes
    /// made since can only be rolled back, and `commit` will say so.
    var failed: Bool { database.transactionFailure != nil || requestFailure != nil }

    /// Makes every write so far durable. If anything fails — an observer's
    /// last writes, a statement since the last commit, the commit itself —
    /// everything since the last commit is rolled back, the observers are
    /// told, and the error is thrown; the next write starts afresh.
    func commit() throws(StoreError) {
        guard hasPendingWrites else {
            for o in observers { o.transactionDidCommit() }
            return
        }
        defer { changes = ChangeRecord() }
        do throws(StoreError) {
            // A doomed transaction fails with its own error, not with one from adding to it.
            if let requestFailure { throw requestFailure }
            if !failed {
                for o in observers { try o.transactionWillCommit() }
                if let otherWriters, otherWriters.recordsChanges { try otherWriters.transactionWillCommit(changes.encoded()) }
            }
            try database.commit()
        } catch {
            rollBack()
            throw error
        }
        otherWriters?.transactionDidCommit()
        for o in observers { o.transactionDidCommit() }
    }

    /// Undoes everything written since the last commit, and tells the observers.
    func rollBack() {
        changes = ChangeRecord()
        requestFailure = nil
        database.rollback()
        for o in observers { o.transactionDidRollBack() }
    }

    /// Looks for another process's commit since the last look, outside a transaction.
    func noticeForeignWrites() throws(StoreError) {
        guard !database.isInTransaction else { return }
        try catchUpWithOtherProcesses()
    }

    /// Tells the observers if another writer committed since this one last
    /// looked (outside a transaction, or at its start).
    private func catchUpWithOtherProcesses() throws(StoreError) {
        guard let otherWriters, let found = try otherWriters.changesSinceLastLook(),
              let changes = ChangeRecord(found) else { return }
        for o in observers { o.storeChanged(elsewhere: changes) }
    }
}

/// A value derived from the store's tables and read from them again on
/// demand: forgotten (back to `initial`) when a transaction rolls back or
/// another process commits, since either may have changed what it was read from.
final class Derived<Value>: TransactionObserver {
    private let initial: Value
    var value: Value

    init(_ initial: Value) {
        self.initial = initial
        value = initial
    }

    func transactionDidRollBack() { value = initial }
}
