extension StoreError {
    /// Whether the same request may succeed if sent again unchanged: the
    /// store could not be reached, or another writer was in the way (SQLite's
    /// lock held past the busy timeout; PostgreSQL's serialization failure,
    /// deadlock or lock timeout, after which the server has rolled the
    /// transaction back).
    public var isRetryable: Bool {
        switch self {
        case .storageUnavailable:
            return true
        case .postgreSQL(let sqlState, _):
            return [PostgresSQLState.serializationFailure, PostgresSQLState.deadlockDetected, PostgresSQLState.lockNotAvailable].contains(sqlState)
        case .storage(let code, _):
            return code & 0xFF == 5 || code & 0xFF == 6
        case .encryption(_, .rekeyRunning):
            return true
        default:
            return false
        }
    }

}

/// SQLSTATE codes the connection treats specially (PostgreSQL's documentation, appendix A).
public enum PostgresSQLState {
    public static let serializationFailure = "40001"
    public static let deadlockDetected = "40P01"
    /// A lock waited for past `lock_timeout`: another sidecar's write transaction held it.
    public static let lockNotAvailable = "55P03"
    public static let inFailedTransaction = "25P02"

    /// Codes that say the server is going away or not there yet, rather than
    /// that the statement was wrong: connection exceptions (class 08), an
    /// administrator's or a crash's shutdown, a server still starting.
    public static func meansUnavailable(_ sqlState: String) -> Bool {
        sqlState.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(sqlState)
    }

    /// libpq's messages end with a newline and sometimes carry the severity
    /// ("ERROR:  "); a message here is one line without either.
    public static func trimmed(_ message: String) -> String {
        var lines = message.split(separator: "\n", omittingEmptySubsequences: true)
            .map { String($0.drop { $0 == " " || $0 == "\t" }) }
        for (n, line) in lines.enumerated() {
            for severity in ["FATAL:  ", "ERROR:  ", "PANIC:  "] where line.hasPrefix(severity) {
                lines[n] = String(line.dropFirst(severity.count))
            }
        }
        return lines.joined(separator: "; ")
    }
}
