import LarderStorage

/// Statements sent to the server together, in one transaction, with one
/// network round trip for all of them (libpq's pipeline mode): a burst of
/// writes costs one wait for the server, not one per statement.
///
/// Run by `PostgresConnection.run(_:)`. If a statement fails, the server
/// skips the rest and rolls the transaction back: nothing of the burst is
/// committed. Inside `PostgresConnection.transaction`, the statements run in
/// that transaction instead, and a failure aborts it.
public struct PostgresPipeline {
    enum Step {
        case prepared(PostgresStatement, [PostgresValue])
        case sql(String, [PostgresValue])
    }

    private(set) var steps: [Step] = []
    /// How int8 and bytea parameters are sent and results are read.
    public let format: PostgresFormat

    public init(format: PostgresFormat = .binary) { self.format = format }

    public var count: Int { steps.count }
    public var isEmpty: Bool { steps.isEmpty }

    /// Adds a run of a prepared statement (prepared in the same round trip if the session has not yet).
    public mutating func append(_ statement: PostgresStatement, _ parameters: [PostgresValue] = []) {
        steps.append(.prepared(statement, parameters))
    }

    /// Adds one statement of SQL text, parsed for this run only.
    public mutating func append(sql: String, _ parameters: [PostgresValue] = []) {
        steps.append(.sql(sql, parameters))
    }
}

/// What became of each statement of a pipeline, in the order they were added.
public struct PostgresPipelineResult {
    public enum Outcome {
        /// The statement ran (undone all the same if `failure` is set).
        case done(PostgresResult)
        /// The statement failed: the pipeline's `failure`.
        case failed(StoreError)
        /// Not run, because a statement before it failed.
        case skipped
    }

    public let outcomes: [Outcome]
    /// The error that undid the burst: a statement's, or the commit's (then
    /// every outcome is `done`). Nil when everything was committed, or, inside
    /// a transaction, ran.
    public let failure: StoreError?

    public var count: Int { outcomes.count }
    public subscript(index: Int) -> Outcome { outcomes[index] }
}
