import CLibPQ
import LarderCore

extension StoreError {
    /// The error of a failed libpq call: `result` is the error result when
    /// there is one (with the server's SQLSTATE), else libpq's message on the
    /// connection says what failed.
    static func postgres(_ result: OpaquePointer?, connection: OpaquePointer) -> StoreError {
        let sqlState = result.flatMap { larder_pq_sqlstate($0) }.map { String(cString: $0) }
        var message = result.map { String(cString: PQresultErrorMessage($0)) } ?? ""
        if message.isEmpty { message = String(cString: PQerrorMessage(connection)) }
        message = PostgresSQLState.trimmed(message)
        if PQstatus(connection) != CONNECTION_OK || sqlState.map(PostgresSQLState.meansUnavailable) == true {
            return .storageUnavailable(reason: message, sqlState: sqlState)
        }
        // libpq's own errors (a call it refuses, memory) carry no SQLSTATE.
        guard let sqlState else { return .internalFailure("libpq: \(message)") }
        return .postgreSQL(sqlState: sqlState, message: message)
    }
}
