import CLibPQ
import LarderStorage

/// One message of a pipeline, as libpq sends it.
enum PipelineItem {
    case prepare(PostgresStatement)
    case sql(String, [PostgresValue], PostgresFormat)
    case prepared(PostgresStatement, [PostgresValue], PostgresFormat)
}

/// What the server answered to one pipeline item.
enum PipelineReply {
    case done(PostgresResult)
    case failed(StoreError)
    /// Not run: an item before it failed, and the server skipped the rest until the sync.
    case skipped
}

extension PostgresConnection {
    /// Runs `pipeline`'s statements as one transaction, in one round trip:
    /// BEGIN, the prepares this session still needs, the statements and
    /// COMMIT are sent together, followed by a sync, before any result is
    /// read. Returns only once the server has answered the COMMIT: with no
    /// `failure`, the burst is committed. Inside a transaction (`begin`)
    /// there is no BEGIN: the statements join it, and end it with a COMMIT
    /// only if `committing` (the transaction is then over, whatever became
    /// of it). Loss of the connection throws
    /// `storageUnavailable`; if it came after the COMMIT was sent, whether
    /// the burst was committed is unknown, and its writes must be taken as
    /// not acknowledged.
    public func run(_ pipeline: PostgresPipeline, committing: Bool = false) throws(StoreError) -> PostgresPipelineResult {
        let ending = committing && inTransaction
        guard !pipeline.isEmpty else {
            if ending { try commit() }
            return PostgresPipelineResult(outcomes: [], failure: nil)
        }
        // Over whatever happens: anything the server still holds open is rolled back.
        defer { if ending { rollBack() } }
        for case .prepared(let statement, _) in pipeline.steps { try register(statement) }
        let connection = try session()
        // Inside a transaction the statements join it: a BEGIN would be
        // refused with a warning only.
        let begins = !inTransaction
        let wrapped = begins || ending

        var items: [PipelineItem] = []
        var preparing: Set<String> = []
        if begins { items.append(.sql("BEGIN", [], .text)) }
        for case .prepared(let statement, _) in pipeline.steps
        where !prepared.contains(statement.name) && preparing.insert(statement.name).inserted {
            items.append(.prepare(statement))
        }
        let firstStep = items.count
        for step in pipeline.steps {
            switch step {
            case .prepared(let statement, let parameters): items.append(.prepared(statement, parameters, pipeline.format))
            case .sql(let sql, let parameters): items.append(.sql(sql, parameters, pipeline.format))
            }
        }
        if wrapped { items.append(.sql("COMMIT", [], .text)) }

        let replies = try exchange(items, on: connection)
        // A sync ends only an implicit transaction: after a failure, the
        // explicit one is still open (aborted) until rolled back.
        if wrapped { rollback() }

        // A failed prepare is the failure of the first statement that needed it.
        var failure: StoreError?
        var failedPrepare: (name: String, error: StoreError)?
        for (index, reply) in replies.enumerated() where index < firstStep {
            guard case .failed(let error) = reply else { continue }
            failure = failure ?? error
            if case .prepare(let statement) = items[index] { failedPrepare = (statement.name, error) }
        }
        var outcomes: [PostgresPipelineResult.Outcome] = []
        outcomes.reserveCapacity(pipeline.count)
        for (offset, step) in pipeline.steps.enumerated() {
            switch replies[firstStep + offset] {
            case .done(let result):
                outcomes.append(.done(result))
            case .failed(let error):
                failure = failure ?? error
                outcomes.append(.failed(error))
            case .skipped:
                if case .prepared(let statement, _) = step, let f = failedPrepare, f.name == statement.name {
                    outcomes.append(.failed(f.error))
                    failedPrepare = nil
                } else {
                    outcomes.append(.skipped)
                }
            }
        }
        if wrapped, failure == nil {
            switch replies[replies.count - 1] {
            case .failed(let error): failure = error
            case .done(let result) where result.commandTag != "COMMIT":
                failure = .postgreSQL(sqlState: PostgresSQLState.inFailedTransaction, message: "COMMIT answered \(result.commandTag)")
            default: break
            }
        }
        return PostgresPipelineResult(outcomes: outcomes, failure: failure)
    }

    /// Sends `items` in pipeline mode, then a sync, then reads the reply to
    /// each, in order, and the sync's: one round trip, waiting at most
    /// `timeout` in all.
    ///
    /// libpq writes in chunks of 8 kB as items are queued, as far as the
    /// socket takes them without waiting, and keeps the rest; the flush
    /// after the sync reads what the server answers meanwhile while it
    /// writes, so a burst larger than the socket buffers cannot stall with
    /// both sides writing.
    func exchange(_ items: [PipelineItem], on connection: OpaquePointer) throws(StoreError) -> [PipelineReply] {
        do {
            return try exchangeOnce(items, on: connection)
        } catch {
            // Results may be left unread, the connection in pipeline mode:
            // the session cannot serve another call, and is ended.
            if handle != nil { lose(Self.reason(error)) }
            throw error
        }
    }

    private func exchangeOnce(_ items: [PipelineItem], on connection: OpaquePointer) throws(StoreError) -> [PipelineReply] {
        guard PQenterPipelineMode(connection) == 1 else { throw failure(nil, connection) }
        for item in items where !send(item, on: connection) { throw failure(nil, connection) }
        guard PQpipelineSync(connection) == 1 else { throw failure(nil, connection) }
        roundTrips += 1
        let deadline = ContinuousClock.now + timeout
        try flush(connection, until: deadline)

        var replies: [PipelineReply] = []
        replies.reserveCapacity(items.count)
        for index in items.indices {
            guard let result = try nextResult(connection, until: deadline) else { throw failure(nil, connection) }
            switch PQresultStatus(result) {
            case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
                replies.append(.done(PostgresResult(result)))
                if case .prepare(let statement) = items[index] { prepared.insert(statement.name) }
            case PGRES_PIPELINE_ABORTED:
                PQclear(result)
                replies.append(.skipped)
            default:
                let error = failure(result, connection)
                PQclear(result)
                if case .storageUnavailable = error { throw error }
                replies.append(.failed(error))
            }
            // Each item's results end with a null one.
            while let extra = try nextResult(connection, until: deadline) {
                let lost = PQstatus(connection) != CONNECTION_OK
                PQclear(extra)
                if lost { throw failure(nil, connection) }
            }
        }
        guard let sync = try nextResult(connection, until: deadline) else { throw failure(nil, connection) }
        let synced = PQresultStatus(sync) == PGRES_PIPELINE_SYNC
        guard synced else {
            let error = failure(sync, connection)
            PQclear(sync)
            throw error
        }
        PQclear(sync)
        guard PQexitPipelineMode(connection) == 1 else { throw failure(nil, connection) }
        return replies
    }

    /// Queues one item; false when libpq refused it.
    private func send(_ item: PipelineItem, on connection: OpaquePointer) -> Bool {
        switch item {
        case .prepare(let statement):
            let types = statement.parameterTypes.map(\.rawValue)
            return types.withUnsafeBufferPointer {
                PQsendPrepare(connection, statement.name, statement.sql, Int32($0.count), $0.baseAddress)
            } == 1
        case .sql(let sql, let parameters, let format):
            return PostgresParameters.lend(parameters, format: format) { lent in
                lent.withArrays { count, types, values, lengths, formats in
                    PQsendQueryParams(connection, sql, count, types, values, lengths, formats, format.rawValue)
                }
            } == 1
        case .prepared(let statement, let parameters, let format):
            return PostgresParameters.lend(parameters, format: format) { lent in
                lent.withArrays { count, _, values, lengths, formats in
                    PQsendQueryPrepared(connection, statement.name, count, values, lengths, formats, format.rawValue)
                }
            } == 1
        }
    }
}
