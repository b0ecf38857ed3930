#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CLibPQ
import LarderCore

/// A connection to a PostgreSQL server through libpq, with the statements
/// it prepared and the channels it listens to, both restored on each new
/// session.
///
/// When the server goes away (stopped, crashed, restarting, unreachable),
/// the call that finds out throws `StoreError.storageUnavailable`, and so
/// does every call until a new session is open: each call tries to connect
/// again once the backoff's wait has passed, and fails at once before that,
/// so that a caller is never held longer than one connection attempt and a
/// server coming back is not met by every client at once. A new session
/// prepares the statements of the last and listens to its channels (in one
/// round trip) before any call runs on it.
///
/// One thread at a time, like `Database`; each thread that needs the server
/// at the same time as another has a connection of its own.
public final class PostgresConnection {
    /// How the server was named: a URL (`postgresql://user@host:port/db`),
    /// `key=value` pairs (`host=... dbname=...`, `service=name`), a bare
    /// database name, or empty; what it leaves out comes from libpq's
    /// environment variables (PGHOST, PGPORT, PGUSER, PGSERVICE…) and defaults.
    public let conninfo: String
    /// Settings that override the conninfo's, such as `application_name`.
    private let settings: [(String, String)]
    /// SQL run first on every session, before its statements are prepared
    /// (their tables are found then): `SET search_path`, say.
    private let sessionSetup: String?
    /// The session; nil after it was lost, until the next one opens.
    private(set) var handle: OpaquePointer?
    public var backoff: PostgresBackoff
    /// When the next connection attempt may be made, after one failed.
    private var retryAt: ContinuousClock.Instant?
    /// Why the server could not be reached, for the errors given meanwhile.
    private var unreachable = ""
    /// Statements by name: prepared on each session, once.
    private var statements: [String: PostgresStatement] = [:]
    /// The names of those prepared on the current session.
    var prepared: Set<String> = []
    /// Channels listened to, in the order first listened to.
    var channels: [String] = []
    /// Whether a transaction opened by `transaction` is in progress.
    var inTransaction = false
    /// Set when the session was lost inside `transaction`: the server rolled
    /// that transaction back, so no statement of its body may run on a new
    /// session (outside any transaction) until it ends.
    private var transactionLost = false
    /// Savepoints open inside the transaction; their names are numbered by it.
    var savepointDepth = 0
    /// Sessions opened so far: 1 after `init`, one more for each reconnection.
    public private(set) var sessions = 0
    /// Waits for the server's answer so far (each call, or each pipeline,
    /// waits once), for the tests of what is sent together.
    public internal(set) var roundTrips = 0

    /// Connects to the server `conninfo` names. `settings` are connection
    /// parameters that win over the conninfo's and the environment's.
    public init(_ conninfo: String, settings: [String: String] = [:], sessionSetup: String? = nil,
                backoff: PostgresBackoff = PostgresBackoff()) throws(StoreError) {
        // libpq reads a URL only when its scheme is in lowercase; URL schemes are case-insensitive.
        self.conninfo = PostgresStore.lowercasingScheme(conninfo)
        self.settings = settings.sorted { $0.key < $1.key }
        self.sessionSetup = sessionSetup
        self.backoff = backoff
        try Self.validate(self.conninfo)
        handle = try openSession()
        sessions = 1
    }

    deinit { close() }

    /// Ends the session. The connection can still be used: the next call opens a new one.
    public func close() {
        if let handle { PQfinish(handle) }
        handle = nil
        prepared = []
    }

    /// Whether a session is open (as far as libpq knows: a server that went
    /// away while the connection was idle is found out by the next call).
    public var isConnected: Bool { handle.map { PQstatus($0) == CONNECTION_OK } ?? false }

    /// The server's version as a number: 150018 for 15.18.
    public var serverVersion: Int { handle.map { Int(PQserverVersion($0)) } ?? 0 }

    /// The process ID of the server process serving this session.
    public var backendPID: Int32 { handle.map { PQbackendPID($0) } ?? 0 }

    /// Where the session is connected: a host name or address, or the
    /// directory of a Unix socket; and the port.
    public var host: String? { handle.flatMap { PQhost($0) }.map { String(cString: $0) } }
    public var port: String? { handle.flatMap { PQport($0) }.map { String(cString: $0) } }

    // MARK: - Running statements

    /// Runs SQL text with no parameters through the simple query protocol:
    /// it may hold several statements; the last one's result is returned,
    /// in text format.
    @discardableResult
    public func execute(_ sql: String) throws(StoreError) -> PostgresResult {
        let connection = try session()
        return try check(PQexec(connection, sql), connection)
    }

    /// Runs one statement with `parameters` as `$1`, `$2`…, parsed and
    /// planned for this run only; results come in `format`.
    @discardableResult
    public func query(_ sql: String, _ parameters: [PostgresValue] = [], format: PostgresFormat = .binary) throws(StoreError) -> PostgresResult {
        let connection = try session()
        let result = PostgresParameters.lend(parameters, format: format) { lent in
            lent.withArrays { count, types, values, lengths, formats in
                PQexecParams(connection, sql, count, types, values, lengths, formats, format.rawValue)
            }
        }
        return try check(result, connection)
    }

    /// Prepares `statement` on this session now (and on every later one).
    public func prepare(_ statement: PostgresStatement) throws(StoreError) {
        try register(statement)
        let connection = try session()
        if !prepared.contains(statement.name) { try prepare(statement, on: connection) }
    }

    /// Runs a prepared statement, preparing it first if this session has not.
    @discardableResult
    public func run(_ statement: PostgresStatement, _ parameters: [PostgresValue] = [], format: PostgresFormat = .binary) throws(StoreError) -> PostgresResult {
        try register(statement)
        let connection = try session()
        if !prepared.contains(statement.name) { try prepare(statement, on: connection) }
        let result = PostgresParameters.lend(parameters, format: format) { lent in
            lent.withArrays { count, _, values, lengths, formats in
                PQexecPrepared(connection, statement.name, count, values, lengths, formats, format.rawValue)
            }
        }
        return try check(result, connection)
    }

    /// The types of a prepared statement's parameters, as the server
    /// settled them (those declared, and those it inferred from the SQL).
    public func parameterTypes(of statement: PostgresStatement) throws(StoreError) -> [PostgresType] {
        try prepare(statement)
        let connection = try session()
        let result = try check(PQdescribePrepared(connection, statement.name), connection)
        return (0..<PQnparams(result.raw)).map { PostgresType(rawValue: PQparamtype(result.raw, $0)) }
    }

    /// Remembers `statement` under its name; a name already used for other SQL is refused.
    func register(_ statement: PostgresStatement) throws(StoreError) {
        if let known = statements[statement.name] {
            guard known != statement else { return }
            throw .internalFailure("the statement name \(statement.name) is already used for: \(known.sql)")
        }
        statements[statement.name] = statement
    }

    private func prepare(_ statement: PostgresStatement, on connection: OpaquePointer) throws(StoreError) {
        let types = statement.parameterTypes.map(\.rawValue)
        let result = types.withUnsafeBufferPointer {
            PQprepare(connection, statement.name, statement.sql, Int32($0.count), $0.baseAddress)
        }
        _ = try check(result, connection)
        prepared.insert(statement.name)
    }

    /// The result of a synchronous call, or its error.
    func check(_ result: OpaquePointer?, _ connection: OpaquePointer) throws(StoreError) -> PostgresResult {
        roundTrips += 1
        guard let result else { throw failure(nil, connection) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return PostgresResult(result)
        default:
            let error = failure(result, connection)
            PQclear(result)
            throw error
        }
    }

    /// The error a failed call made. When it says the server cannot be
    /// reached, the session is ended here: `connection` must not be used
    /// after this returns that error.
    func failure(_ result: OpaquePointer?, _ connection: OpaquePointer) -> StoreError {
        let error = StoreError.postgres(result, connection: connection)
        if case .storageUnavailable(let reason, _) = error { lose(reason) }
        return error
    }

    // MARK: - Sessions

    /// The open session, or a new one if the last was lost (once the backoff's wait has passed).
    func session() throws(StoreError) -> OpaquePointer {
        if let handle {
            if PQstatus(handle) == CONNECTION_OK { return handle }
            lose(PostgresSQLState.trimmed(cText(PQerrorMessage(handle))))
        }
        if transactionLost {
            throw .storageUnavailable(reason: "the connection was lost during the transaction, which the server rolled back", sqlState: nil)
        }
        let now = ContinuousClock.now
        if let retryAt, now < retryAt {
            let wait = (retryAt - now).components
            let milliseconds = wait.seconds * 1000 + wait.attoseconds / 1_000_000_000_000_000
            throw .storageUnavailable(reason: "\(unreachable) (next attempt in \(milliseconds) ms)", sqlState: nil)
        }
        do {
            let connection = try openSession()
            handle = connection
            sessions += 1
            try restore(connection)
            backoff.reset()
            retryAt = nil
            return connection
        } catch {
            if handle != nil { close() }
            unreachable = Self.reason(error)
            retryAt = ContinuousClock.now + backoff.next()
            throw error
        }
    }

    /// Reconnects now if the session was lost, waiting out the backoff
    /// between attempts, until a session is open or `timeout` has passed.
    public func reconnect(within timeout: Duration) throws(StoreError) {
        let deadline = ContinuousClock.now + timeout
        while true {
            do {
                _ = try session()
                return
            } catch {
                guard case .storageUnavailable = error, !transactionLost else { throw error }
                let next = retryAt ?? ContinuousClock.now
                guard next < deadline else { throw error }
                Self.sleep(until: next)
            }
        }
    }

    /// Ends a session that was lost; the next call may try to connect at once.
    func lose(_ reason: String) {
        close()
        unreachable = reason
        if inTransaction { transactionLost = true }
    }

    /// Ends the transaction `transaction` opened, however it ended.
    func endTransaction() {
        inTransaction = false
        transactionLost = false
    }

    /// Prepares the statements and listens to the channels of the sessions
    /// before, all in one round trip. A statement that fails to prepare now
    /// (its table dropped meanwhile, say) is prepared again when next run,
    /// and fails then.
    private func restore(_ connection: OpaquePointer) throws(StoreError) {
        var items = statements.values.sorted { $0.name < $1.name }.map { PipelineItem.prepare($0) }
        for channel in channels {
            guard let quoted = Self.quotedIdentifier(channel, on: connection) else { continue }
            items.append(.sql("LISTEN \(quoted)", [], .text))
        }
        guard !items.isEmpty else { return }
        _ = try exchange(items, on: connection)
    }

    /// Opens a session with libpq. Defaults that the conninfo and the
    /// environment may replace come first; `settings` next; last the client
    /// encoding, which must be UTF-8 for the text sent and read here.
    private func openSession() throws(StoreError) -> OpaquePointer {
        var parameters = [("fallback_application_name", "larder")]
        // Without a timeout, connecting to a host that drops packets waits
        // for the kernel's, minutes; PGCONNECT_TIMEOUT still wins.
        if getenv("PGCONNECT_TIMEOUT") == nil { parameters.append(("connect_timeout", "10")) }
        // Over TCP, a server that vanished without closing the connection (a
        // host down, a network cut) is otherwise noticed after the kernel's
        // two hours of silence: probe an idle connection after 10 s, give up
        // after 3 unanswered probes 5 s apart, or when sent data stays
        // unacknowledged for 30 s. (Unix sockets ignore these.)
        parameters += [("keepalives_idle", "10"), ("keepalives_interval", "5"), ("keepalives_count", "3"),
                       ("tcp_user_timeout", "30000")]
        if !conninfo.isEmpty { parameters.append(("dbname", conninfo)) }
        parameters += settings
        parameters.append(("client_encoding", "UTF8"))
        let connection = Self.withCStrings(parameters.map(\.0)) { keywords in
            Self.withCStrings(parameters.map(\.1)) { values in
                // 1: the first dbname may be a whole conninfo, expanded in place.
                PQconnectdbParams(keywords, values, 1)
            }
        }
        guard let connection else { throw .storageUnavailable(reason: "libpq is out of memory", sqlState: nil) }
        guard PQstatus(connection) == CONNECTION_OK else {
            let reason = PostgresSQLState.trimmed(cText(PQerrorMessage(connection)))
            PQfinish(connection)
            throw .storageUnavailable(reason: reason, sqlState: nil)
        }
        // libpq prints the server's notices (such as "relation already
        // exists, skipping") on stderr unless told otherwise.
        _ = PQsetNoticeProcessor(connection, { _, _ in }, nil)
        if let sessionSetup {
            let result = PQexec(connection, sessionSetup)
            defer { PQclear(result) }
            guard PQresultStatus(result) == PGRES_COMMAND_OK else {
                let error = StoreError.postgres(result, connection: connection)
                PQfinish(connection)
                throw error
            }
        }
        return connection
    }

    /// Refuses a URL or key=value conninfo that libpq cannot read, once,
    /// rather than failing every connection attempt for ever after.
    private static func validate(_ conninfo: String) throws(StoreError) {
        guard conninfo.contains("=") || conninfo.contains("://") else { return }
        var message: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(conninfo, &message) else {
            let reason = message.map { PostgresSQLState.trimmed(String(cString: $0)) } ?? "libpq is out of memory"
            if let message { PQfreemem(message) }
            throw .invalidArgument(field: "conninfo", reason: reason)
        }
        PQconninfoFree(options)
    }

    static func reason(_ error: StoreError) -> String {
        if case .storageUnavailable(let reason, _) = error { return reason }
        return "\(error)"
    }

    /// `name` quoted as an SQL identifier, or nil if libpq cannot.
    static func quotedIdentifier(_ name: String, on connection: OpaquePointer) -> String? {
        guard let quoted = PQescapeIdentifier(connection, name, name.utf8.count) else { return nil }
        defer { PQfreemem(quoted) }
        return String(cString: quoted)
    }

    /// Calls `body` with `strings` as a NULL-terminated C array.
    private static func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
        let copies = strings.map { UnsafePointer(strdup($0)) } + [nil]
        defer { for copy in copies { free(UnsafeMutablePointer(mutating: copy)) } }
        return copies.withUnsafeBufferPointer { body($0.baseAddress!) }
    }

    static func sleep(until instant: ContinuousClock.Instant) {
        let wait = instant - ContinuousClock.now
        guard wait > .zero else { return }
        let (seconds, attoseconds) = wait.components
        var time = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var left = timespec()
        while nanosleep(&time, &left) != 0 && errno == EINTR { time = left }
    }
}
