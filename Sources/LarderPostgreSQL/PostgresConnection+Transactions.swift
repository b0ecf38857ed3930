import CLibPQ
import LarderStorage

extension PostgresConnection {
    /// Runs `body` in a transaction: committed if it returns, rolled back if
    /// it throws. Returning means PostgreSQL answered the COMMIT: the writes
    /// are committed. Transactions do not nest; `savepoint` does.
    @discardableResult
    public func transaction<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        try begin()
        let value: T
        do {
            value = try body()
        } catch {
            rollBack()
            throw error
        }
        try commit()
        return value
    }

    /// Opens a transaction that `commit` or `rollBack` ends: for a caller
    /// whose transaction spans many calls (the store's group commit).
    /// `then` runs first in it, in the same round trip (taking a lock,
    /// reading a row): the result of its last statement is returned, in text.
    @discardableResult
    public func begin(then first: String? = nil) throws(StoreError) -> PostgresResult {
        guard !inTransaction else { throw .internalFailure("a transaction is already open on this connection") }
        let result: PostgresResult
        do {
            result = try execute(first.map { "BEGIN; " + $0 } ?? "BEGIN")
        } catch {
            rollback()
            throw error
        }
        inTransaction = true
        return result
    }

    /// Commits the transaction `begin` opened; it is over either way.
    public func commit() throws(StoreError) {
        guard inTransaction else { throw .internalFailure("no transaction is open to commit") }
        defer { endTransaction() }
        let result: PostgresResult
        do {
            result = try execute("COMMIT")
        } catch {
            rollback()
            throw error
        }
        // COMMIT in a transaction an error aborted answers ROLLBACK, and no error.
        guard result.commandTag == "COMMIT" else {
            throw StoreError.postgreSQL(sqlState: PostgresSQLState.inFailedTransaction,
                                        message: "a statement of the transaction failed, and COMMIT rolled it back")
        }
    }

    /// Rolls back the transaction `begin` opened, if the session still has it.
    public func rollBack() {
        rollback()
        endTransaction()
    }

    /// Runs `body` inside the open transaction under a savepoint: if it
    /// throws, what it did is undone, and the transaction goes on as before
    /// it (an error inside no longer aborts the whole transaction).
    @discardableResult
    public func savepoint<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        guard inTransaction else { throw .internalFailure("a savepoint needs a transaction") }
        savepointDepth += 1
        defer { savepointDepth -= 1 }
        let name = "larder_savepoint_\(savepointDepth)"
        try execute("SAVEPOINT \(name)")
        do {
            let value = try body()
            try execute("RELEASE SAVEPOINT \(name)")
            return value
        } catch {
            // Best effort: the body's failure is the error to report, not the rollback's.
            if isConnected { _ = try? execute("ROLLBACK TO SAVEPOINT \(name); RELEASE SAVEPOINT \(name)") }
            throw error
        }
    }

    /// Rolls back whatever transaction the session has open, if it is still there.
    func rollback() {
        guard let handle, PQstatus(handle) == CONNECTION_OK, PQtransactionStatus(handle) != PQTRANS_IDLE else { return }
        roundTrips += 1
        // A server that does not answer loses the session, and with it the transaction.
        PQclear((try? answer(on: handle) { PQsendQuery(handle, "ROLLBACK") }) ?? nil)
    }

    /// Waits until this session holds the advisory lock `key`, which it then
    /// keeps until the transaction ends (`pg_advisory_xact_lock`): sessions
    /// that lock the same key run one after another, on any host.
    public func advisoryLock(_ key: Int64) throws(StoreError) {
        guard inTransaction else { throw .internalFailure("an advisory lock is held for a transaction, and none is open") }
        try query("SELECT pg_advisory_xact_lock($1)", [.int8(key)])
    }

    /// Takes the advisory lock `key` for the transaction if no other session
    /// holds it, without waiting; false if one does.
    public func tryAdvisoryLock(_ key: Int64) throws(StoreError) -> Bool {
        guard inTransaction else { throw .internalFailure("an advisory lock is held for a transaction, and none is open") }
        return try query("SELECT pg_try_advisory_xact_lock($1)", [.int8(key)], format: .text).string(0, 0) == "t"
    }
}
