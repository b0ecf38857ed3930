import LarderCore
import LarderJSON
import LarderRPC
import XCTest
@testable import LarderServer
import LarderStorage

/// How the errors of a PostgreSQL store reach a client (no server needed).
final class PostgreSQLErrorResponseTests: XCTestCase {
    func testAnUnreachableServerIsStorageUnavailableAndRetryable() {
        let refused = StoreError.storageUnavailable(reason: "connection refused", sqlState: nil).responseError
        XCTAssertEqual(refused.code.rawValue, -31003)
        XCTAssertEqual(refused.message, "storage unavailable: connection refused")
        XCTAssertEqual(refused.data, ["retryable": true])

        let shutDown = StoreError.storageUnavailable(reason: "terminating connection due to immediate shutdown command", sqlState: "57P01")
        XCTAssertEqual(shutDown.responseError.code.rawValue, -31003)
        XCTAssertEqual(shutDown.responseError.data, ["retryable": true, "sqlState": "57P01"])
    }

    func testConflictsWithOtherWritersAreStoreLockedAndRetryable() {
        for sqlState in ["40001", "40P01"] {
            let error = StoreError.postgreSQL(sqlState: sqlState, message: "could not serialize access").responseError
            XCTAssertEqual(error.code.rawValue, -31002, sqlState)
            XCTAssertEqual(error.data, ["sqlState": .string(sqlState), "retryable": true])
        }
    }

    func testOtherRefusalsAreStorageFailuresWithTheirSQLState() {
        let error = StoreError.postgreSQL(sqlState: "23505", message: String(repeating: "k", count: 1000)).responseError
        XCTAssertEqual(error.code.rawValue, -31001)
        XCTAssertEqual(error.data, ["sqlState": "23505"])
        XCTAssertLessThan(error.message.utf8.count, 300, "the server's message is capped like any echoed text")
    }
}
