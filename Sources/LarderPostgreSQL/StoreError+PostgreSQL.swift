import CLibPQ
import LarderStorage

extension StoreError {
    /// The error of a failed libpq call: `result` is the error result when
    /// there is one (with the server's SQLSTATE), else libpq's message on the
    /// connection says what failed.
    static func postgres(_ result: OpaquePointer?, connection: OpaquePointer) -> StoreError {
        // PG_DIAG_SQLSTATE is 'C' (a character constant, which Swift does not import).
        let sqlState = result.flatMap { PQresultErrorField($0, Int32(UInt8(ascii: "C"))) }.map { String(cString: $0) }
        var message = result.map { cText(PQresultErrorMessage($0)) } ?? ""
        if message.isEmpty { message = cText(PQerrorMessage(connection)) }
        message = PostgresSQLState.trimmed(message)
        if PQstatus(connection) != CONNECTION_OK || sqlState.map(PostgresSQLState.meansUnavailable) == true {
            return .storageUnavailable(reason: message, sqlState: sqlState)
        }
        // libpq's own errors (a call it refuses, memory) carry no SQLSTATE.
        guard let sqlState else { return .internalFailure("libpq: \(message)") }
        return .postgreSQL(sqlState: sqlState, message: message)
    }
}
