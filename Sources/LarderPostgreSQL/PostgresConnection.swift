#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CLibPQ
import LarderStorage

/// A connection to a PostgreSQL server through libpq, with the statements
/// it prepared and the channels it listens to, both restored on each new
/// session.
///
/// No call waits longer than `timeout` for the server: libpq is used
/// without blocking, and each round trip waits for its answer with poll(2)
/// on the session's socket. A server that stays silent past it (a network
/// cut that drops packets, a host gone, a stopped process) loses its
/// session: the socket is closed, and the call throws
/// `StoreError.storageUnavailable`.
///
/// When the server goes away (stopped, crashed, restarting, unreachable),
/// the call that finds out throws `StoreError.storageUnavailable`, and so
/// does every call until a new session is open. Connecting again never
/// holds a call: an attempt is started once the backoff's wait has passed
/// (a server that refuses is not met by every client at once) and goes on
/// between calls; each call moves it on, waiting for it at most
/// `connectWait`, and fails if it has not finished by then. A new session
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
    /// The longest a call waits for the server: for a round trip's answer,
    /// or for a session to open at `init`.
    public let timeout: Duration
    /// When the next connection attempt may be made, after one failed.
    private var retryAt: ContinuousClock.Instant?
    /// The connection attempt under way, if any.
    private var attempt: ConnectionAttempt?
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
    /// `timeout` bounds every wait for the server, this first connection included.
    public init(_ conninfo: String, settings: [String: String] = [:], sessionSetup: String? = nil,
                timeout: Duration = PostgresConnection.defaultTimeout,
                backoff: PostgresBackoff = PostgresBackoff()) throws(StoreError) {
        // libpq reads a URL only when its scheme is in lowercase; URL schemes are case-insensitive.
        self.conninfo = PostgresStore.lowercasingScheme(conninfo)
        self.settings = settings.sorted { $0.key < $1.key }
        self.sessionSetup = sessionSetup
        self.timeout = timeout
        self.backoff = backoff
        try Self.validate(self.conninfo)
        // Attempts whose SYN went unanswered are started again, within the timeout.
        let deadline = ContinuousClock.now + timeout
        while true {
            do throws(StoreError) {
                try startAttempt()
                guard let connection = try advanceAttempt(until: deadline) else {
                    throw StoreError.storageUnavailable(reason: "could not connect to the server within \(Self.text(timeout))", sqlState: nil)
                }
                try establish(connection)
                return
            } catch {
                close()
                guard silentAttempt, ContinuousClock.now < deadline else { throw error }
            }
        }
    }

    deinit { close() }

    /// The default of `timeout` (`--pg-timeout`).
    public static let defaultTimeout: Duration = .seconds(5)

    /// The longest a call waits for a connection attempt under way. A
    /// server that answers opens a session in a few milliseconds (a server
    /// process forked and the client authenticated), so the first call after
    /// it is back is served; one that does not answer holds no call longer
    /// than this.
    public static let connectWait: Duration = .milliseconds(100)

    /// Ends the session, and any connection attempt. The connection can
    /// still be used: the next call opens a new one.
    public func close() {
        if let handle { PQfinish(handle) }
        handle = nil
        prepared = []
        if let attempt { PQfinish(attempt.connection) }
        attempt = nil
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
        return try check(try answer(on: connection) { PQsendQuery(connection, sql) }, connection)
    }

    /// Runs one statement with `parameters` as `$1`, `$2`…, parsed and
    /// planned for this run only; results come in `format`.
    @discardableResult
    public func query(_ sql: String, _ parameters: [PostgresValue] = [], format: PostgresFormat = .binary) throws(StoreError) -> PostgresResult {
        let connection = try session()
        let result = try answer(on: connection) {
            PostgresParameters.lend(parameters, format: format) { lent in
                lent.withArrays { count, types, values, lengths, formats in
                    PQsendQueryParams(connection, sql, count, types, values, lengths, formats, format.rawValue)
                }
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
        let result = try answer(on: connection) {
            PostgresParameters.lend(parameters, format: format) { lent in
                lent.withArrays { count, _, values, lengths, formats in
                    PQsendQueryPrepared(connection, statement.name, count, values, lengths, formats, format.rawValue)
                }
            }
        }
        return try check(result, connection)
    }

    /// The types of a prepared statement's parameters, as the server
    /// settled them (those declared, and those it inferred from the SQL).
    public func parameterTypes(of statement: PostgresStatement) throws(StoreError) -> [PostgresType] {
        try prepare(statement)
        let connection = try session()
        let result = try check(try answer(on: connection) { PQsendDescribePrepared(connection, statement.name) }, connection)
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
        let result = try answer(on: connection) {
            types.withUnsafeBufferPointer {
                PQsendPrepare(connection, statement.name, statement.sql, Int32($0.count), $0.baseAddress)
            }
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

    /// The open session, or a new one if the last was lost: a connection
    /// attempt is started once the backoff's wait has passed, and moved on
    /// for at most `wait`; until it has opened a session, calls fail at once.
    func session(waiting wait: Duration = connectWait) throws(StoreError) -> OpaquePointer {
        if let handle {
            if PQstatus(handle) == CONNECTION_OK { return handle }
            lose(PostgresSQLState.trimmed(cText(PQerrorMessage(handle))))
        }
        if transactionLost {
            throw .storageUnavailable(reason: "the connection was lost during the transaction, which the server rolled back", sqlState: nil)
        }
        if attempt == nil {
            if let retryAt, ContinuousClock.now < retryAt {
                throw .storageUnavailable(reason: "\(unreachable) (next attempt in \(Self.milliseconds(retryAt - .now)) ms)", sqlState: nil)
            }
            do { try startAttempt() } catch { throw attemptFailed(error) }
        }
        let connection: OpaquePointer
        do throws(StoreError) {
            guard let connected = try advanceAttempt(until: .now + wait) else {
                let started = attempt.map { Self.milliseconds(.now - $0.started) } ?? 0
                throw StoreError.storageUnavailable(reason: "\(unreachable) (connecting again for \(started) ms)", sqlState: nil)
            }
            connection = connected
        } catch {
            throw attempt == nil ? attemptFailed(error) : error
        }
        do { try establish(connection) } catch { throw attemptFailed(error) }
        return connection
    }

    /// Notes that a connection attempt failed with `error`, and returns it.
    private func attemptFailed(_ error: StoreError) -> StoreError {
        // An attempt that was never answered waited long enough already: the
        // next starts at once, so that a network that comes back is used
        // within about a second.
        retryAt = silentAttempt ? nil : ContinuousClock.now + backoff.next()
        unreachable = Self.reason(error)
        return error
    }

    /// Opens a session now if none is open and none is being opened, or
    /// moves on the attempt under way, waiting at most `wait`; throws
    /// `storageUnavailable` while there is no session.
    public func connect(waiting wait: Duration) throws(StoreError) {
        _ = try session(waiting: wait)
    }

    /// Reconnects now if the session was lost, waiting out the backoff
    /// between attempts, until a session is open or `timeout` has passed.
    public func reconnect(within timeout: Duration) throws(StoreError) {
        let deadline = ContinuousClock.now + timeout
        while true {
            do {
                _ = try session(waiting: deadline - .now)
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

    // MARK: - Connection attempts

    /// A session being opened by libpq, step by step (`PQconnectPoll`).
    private struct ConnectionAttempt {
        let connection: OpaquePointer
        let started: ContinuousClock.Instant
        /// What the last step waits for on the socket; OK or FAILED when done.
        var polling: PostgresPollingStatusType
    }

    /// Linux sends a connection's SYN again 1 s after the first (its initial
    /// retransmission timeout), then 3 s after that. An attempt whose SYN is
    /// still unanswered just after the first repeat is abandoned, and the
    /// next starts at once, rather than waiting 3 s more: a network that
    /// comes back is then used within about a second of its return.
    static let unansweredConnectionLimit: Duration = .milliseconds(1500)

    /// Whether the last attempt ended because the server never answered
    /// (its SYN unanswered, or the whole attempt past `timeout`).
    private var silentAttempt = false

    /// Starts connecting with libpq, without waiting. Defaults that the
    /// conninfo and the environment may replace come first; `settings`
    /// next; last the client encoding, which must be UTF-8 for the text sent
    /// and read here.
    private func startAttempt() throws(StoreError) {
        silentAttempt = false
        var parameters = [("fallback_application_name", "larder")]
        // Over TCP, a server that vanished without closing an idle
        // connection (a host down, a network cut) is otherwise noticed after
        // the kernel's two hours of silence: probe after 10 s, give up after
        // 3 unanswered probes 5 s apart, or when sent data stays
        // unacknowledged for `timeout` (a call gives up then anyway). Unix
        // sockets ignore these.
        parameters += [("keepalives_idle", "10"), ("keepalives_interval", "5"), ("keepalives_count", "3"),
                       ("tcp_user_timeout", String(Self.milliseconds(timeout)))]
        if !conninfo.isEmpty { parameters.append(("dbname", conninfo)) }
        parameters += settings
        parameters.append(("client_encoding", "UTF8"))
        let connection = Self.withCStrings(parameters.map(\.0)) { keywords in
            Self.withCStrings(parameters.map(\.1)) { values in
                // 1: the first dbname may be a whole conninfo, expanded in place.
                PQconnectStartParams(keywords, values, 1)
            }
        }
        guard let connection else { throw .storageUnavailable(reason: "libpq is out of memory", sqlState: nil) }
        guard PQstatus(connection) != CONNECTION_BAD else {
            let reason = PostgresSQLState.trimmed(cText(PQerrorMessage(connection)))
            PQfinish(connection)
            throw .storageUnavailable(reason: reason, sqlState: nil)
        }
        // Before the first PQconnectPoll, libpq waits to write (its docs).
        attempt = ConnectionAttempt(connection: connection, started: .now, polling: PGRES_POLLING_WRITING)
    }

    /// Moves the attempt under way on until it has connected (returning the
    /// connection, no longer an attempt), failed (thrown), or `deadline`
    /// came first (nil: it goes on at the next call).
    private func advanceAttempt(until deadline: ContinuousClock.Instant) throws(StoreError) -> OpaquePointer? {
        guard var current = attempt else { return nil }
        defer { if attempt != nil { attempt = current } }
        while true {
            switch current.polling {
            case PGRES_POLLING_OK:
                attempt = nil
                return current.connection
            case PGRES_POLLING_FAILED:
                return try abandonAttempt(PostgresSQLState.trimmed(cText(PQerrorMessage(current.connection))), silent: false)
            default:
                break
            }
            let unanswered = PQstatus(current.connection) == CONNECTION_STARTED
            let limit = current.started + (unanswered ? min(timeout, Self.unansweredConnectionLimit) : timeout)
            let events = current.polling == PGRES_POLLING_READING ? Int16(POLLIN) : Int16(POLLOUT)
            if Self.isReady(PQsocket(current.connection), for: events, until: min(deadline, limit)) {
                current.polling = PQconnectPoll(current.connection)
                continue
            }
            let now = ContinuousClock.now
            if now >= limit {
                let what = unanswered ? "the server did not answer a connection attempt within \(Self.text(Self.unansweredConnectionLimit))"
                                      : "could not connect to the server within \(Self.text(timeout))"
                return try abandonAttempt(what, silent: true)
            }
            if now >= deadline { return nil }
        }
    }

    private func abandonAttempt(_ reason: String, silent: Bool) throws(StoreError) -> OpaquePointer? {
        if let attempt { PQfinish(attempt.connection) }
        attempt = nil
        silentAttempt = silent
        throw .storageUnavailable(reason: reason, sqlState: nil)
    }

    /// Makes a newly connected `connection` the session: non-blocking, its
    /// setup run and the last session's statements and channels restored.
    private func establish(_ connection: OpaquePointer) throws(StoreError) {
        // libpq prints the server's notices (such as "relation already
        // exists, skipping") on stderr unless told otherwise.
        _ = PQsetNoticeProcessor(connection, { _, _ in }, nil)
        handle = connection
        do throws(StoreError) {
            guard PQsetnonblocking(connection, 1) == 0 else { throw failure(nil, connection) }
            if let sessionSetup {
                let result = try answer(on: connection) { PQsendQuery(connection, sessionSetup) }
                defer { PQclear(result) }
                guard PQresultStatus(result) == PGRES_COMMAND_OK else { throw StoreError.postgres(result, connection: connection) }
            }
            try restore(connection)
        } catch {
            close()
            throw error
        }
        sessions += 1
        backoff.reset()
        retryAt = nil
    }

    // MARK: - Waiting for the server

    /// Sends what `send` queues (false from it: libpq refused), then waits
    /// for the answer: the last result, as PQexec would return it. Waits at
    /// most `timeout`; past it the session is lost.
    func answer(on connection: OpaquePointer, _ send: () -> Int32) throws(StoreError) -> OpaquePointer? {
        guard send() == 1 else { throw failure(nil, connection) }
        let deadline = ContinuousClock.now + timeout
        try flush(connection, until: deadline)
        var last: OpaquePointer?
        do {
            while let result = try nextResult(connection, until: deadline) {
                PQclear(last)
                last = result
            }
        } catch {
            // The session was lost after an earlier result of the statement came.
            PQclear(last)
            throw error
        }
        return last
    }

    /// Waits until libpq has sent everything it holds, reading what the
    /// server answers meanwhile (it may wait for its answers to be read
    /// before it reads more).
    func flush(_ connection: OpaquePointer, until deadline: ContinuousClock.Instant) throws(StoreError) {
        while true {
            switch PQflush(connection) {
            case 0: return
            case 1:
                let ready = try wait(on: connection, for: Int16(POLLIN | POLLOUT), until: deadline)
                if ready & Int16(POLLIN) != 0, PQconsumeInput(connection) == 0 { throw failure(nil, connection) }
            default: throw failure(nil, connection)
            }
        }
    }

    /// The next result, as PQgetResult returns it, once it has arrived
    /// whole: nil after each statement's results.
    func nextResult(_ connection: OpaquePointer, until deadline: ContinuousClock.Instant) throws(StoreError) -> OpaquePointer? {
        while PQisBusy(connection) == 1 {
            _ = try wait(on: connection, for: Int16(POLLIN), until: deadline)
            guard PQconsumeInput(connection) == 1 else { throw failure(nil, connection) }
        }
        return PQgetResult(connection)
    }

    /// Waits until the session's socket is ready for `events`, and returns
    /// those it is ready for; past `deadline` the session is lost and the
    /// server taken as unreachable.
    private func wait(on connection: OpaquePointer, for events: Int16, until deadline: ContinuousClock.Instant) throws(StoreError) -> Int16 {
        var ready = pollfd(fd: PQsocket(connection), events: events, revents: 0)
        while true {
            let left = deadline - .now
            guard left > .zero else {
                let reason = "the server did not answer within \(Self.text(timeout))"
                lose(reason)
                throw .storageUnavailable(reason: reason, sqlState: nil)
            }
            let n = poll(&ready, 1, Int32(clamping: Self.milliseconds(left) + 1))
            if n > 0 { return ready.revents }
            if n < 0 && errno != EINTR { throw failure(nil, connection) }
        }
    }

    /// Whether `socket` is ready for `events`, or becomes ready before
    /// `deadline` (looked at once if that has passed). An error is readiness:
    /// libpq's next step finds it.
    private static func isReady(_ socket: Int32, for events: Int16, until deadline: ContinuousClock.Instant) -> Bool {
        var ready = pollfd(fd: socket, events: events, revents: 0)
        while true {
            let left = deadline - .now
            let n = poll(&ready, 1, left > .zero ? Int32(clamping: milliseconds(left) + 1) : 0)
            if n > 0 || (n < 0 && errno != EINTR) { return true }
            if n == 0 && left <= .zero { return false }
        }
    }

    static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }

    /// A duration for messages: "5 s", "1.5 s".
    static func text(_ duration: Duration) -> String {
        let ms = milliseconds(duration)
        return ms % 1000 == 0 ? "\(ms / 1000) s" : "\(Double(ms) / 1000) s"
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
