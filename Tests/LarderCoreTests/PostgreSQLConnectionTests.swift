#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import LarderTestSupport
import XCTest
@testable import LarderCore
@testable import LarderPostgreSQL
import LarderStorage

/// Connecting: the ways a server can be named, what the session is set up
/// with, and how errors come back.
final class PostgreSQLConnectionTests: PostgresTestCase {
    func testConnectsWithTheURLAndKnowsTheServerVersion() throws {
        let db = try connect()
        XCTAssertTrue(db.isConnected)
        XCTAssertEqual(db.sessions, 1)
        let version = try XCTUnwrap(db.query("SHOW server_version_num", format: .text).string(0, 0))
        XCTAssertEqual(db.serverVersion, Int(version))
        // Text is read and written as UTF-8 whatever the server's default.
        XCTAssertEqual(try db.query("SHOW client_encoding", format: .text).string(0, 0), "UTF8")
        XCTAssertEqual(try db.query("SELECT current_setting('application_name')").string(0, 0), "larder")
    }

    func testSettingsWinOverTheConninfo() throws {
        let db = try connect(settings: ["application_name": "larder-settings"])
        XCTAssertEqual(try db.query("SELECT current_setting('application_name')").string(0, 0), "larder-settings")
    }

    func testKeyValueConninfoEnvironmentVariablesAndServiceFile() throws {
        let target = try Target(try connect())

        let byPairs = try connect("host='\(target.host)' port=\(target.port) user='\(target.user)' dbname='\(target.database)'",
                                  settings: target.password.map { ["password": $0] } ?? [:])
        XCTAssertEqual(try byPairs.query("SELECT current_database()").string(0, 0), target.database)

        // What the conninfo leaves out comes from PG* variables.
        var environment = ["PGHOST": target.host, "PGPORT": target.port, "PGUSER": target.user,
                           "PGDATABASE": target.database, "PGAPPNAME": "larder-environment"]
        environment["PGPASSWORD"] = target.password
        try withEnvironment(environment) {
            let byEnvironment = try connect("")
            XCTAssertEqual(try byEnvironment.query("SELECT current_database()").string(0, 0), target.database)
            XCTAssertEqual(try byEnvironment.query("SELECT current_setting('application_name')").string(0, 0), "larder-environment")
        }

        // service=NAME reads the connection's parameters from a service file.
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var service = "[larder_test]\nhost=\(target.host)\nport=\(target.port)\nuser=\(target.user)\ndbname=\(target.database)\n"
        if let password = target.password { service += "password=\(password)\n" }
        try service.write(toFile: directory.path + "/pg_service.conf", atomically: true, encoding: .utf8)
        try withEnvironment(["PGSERVICEFILE": directory.path + "/pg_service.conf"]) {
            let byService = try connect("service=larder_test")
            XCTAssertEqual(try byService.query("SELECT current_database()").string(0, 0), target.database)
        }
    }

    func testAConninfoLibpqCannotReadIsRefusedAtOnce() {
        for conninfo in ["host=localhost no_such_option=1", "postgresql://[::1/db"] {
            let error = assertThrowsStoreError(conninfo) { () throws(StoreError) in try PostgresConnection(conninfo) }
            guard case .invalidArgument(let field, _) = error else {
                XCTFail("\(conninfo): expected invalidArgument, got \(error.map { "\($0)" } ?? "nothing")")
                continue
            }
            XCTAssertEqual(field, "conninfo")
            XCTAssertFalse(error!.isRetryable)
        }
    }

    func testAServerNobodyListensForIsUnavailableAndRetryable() throws {
        let port = try closedPort()
        let start = ContinuousClock.now
        let error = assertThrowsStoreError("connecting to a closed port") { () throws(StoreError) in
            try PostgresConnection("postgresql://127.0.0.1:\(port)/larder")
        }
        assertUnavailable(error)
        XCTAssertLessThan(seconds(since: start), 5, "a refused connection is known at once")
    }

    func testServerErrorsKeepTheirSQLStateAndTheSessionGoesOn() throws {
        let db = try connect()
        try db.execute("CREATE TABLE t (k int8 PRIMARY KEY)")
        try db.execute("INSERT INTO t VALUES (1)")

        let syntax = assertThrowsStoreError("a syntax error") { () throws(StoreError) in try db.execute("SELEKT 1") }
        XCTAssertEqual(sqlState(syntax), "42601")
        XCTAssertFalse(syntax?.isRetryable ?? true)

        let duplicate = assertThrowsStoreError("a duplicate key") { () throws(StoreError) in
            try db.query("INSERT INTO t VALUES ($1)", [.int8(1)])
        }
        XCTAssertEqual(sqlState(duplicate), "23505")
        XCTAssertFalse(duplicate?.isRetryable ?? true)

        let deadlock = assertThrowsStoreError("a deadlock") { () throws(StoreError) in
            try db.execute("DO $$ BEGIN RAISE EXCEPTION 'deadlock' USING ERRCODE = 'deadlock_detected'; END $$")
        }
        XCTAssertEqual(sqlState(deadlock), "40P01")
        XCTAssertTrue(deadlock?.isRetryable ?? false)

        XCTAssertEqual(try count("t", on: db), 1)
        XCTAssertEqual(db.sessions, 1)
    }

    func testASerializationFailureIsRetryable() throws {
        let first = try connect()
        let second = try connect()
        try first.execute("CREATE TABLE t (k int8 PRIMARY KEY, v int8)")
        try first.execute("INSERT INTO t VALUES (1, 0)")
        let error = assertThrowsStoreError("an update of a row changed since the snapshot") { () throws(StoreError) in
            try first.transaction { () throws(StoreError) in
                try first.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
                XCTAssertEqual(try first.query("SELECT v FROM t WHERE k = 1").int64(0, 0), 0)
                try second.execute("UPDATE t SET v = 2 WHERE k = 1")
                try first.execute("UPDATE t SET v = 1 WHERE k = 1")
            }
        }
        XCTAssertEqual(sqlState(error), "40001")
        XCTAssertTrue(error?.isRetryable ?? false)
        XCTAssertEqual(try first.query("SELECT v FROM t WHERE k = 1").int64(0, 0), 2)
    }

    /// Where the test server is, read back from a session to it.
    private struct Target {
        let host: String
        let port: String
        let user: String
        let database: String
        let password: String?

        init(_ db: PostgresConnection) throws {
            host = try XCTUnwrap(db.host)
            port = try XCTUnwrap(db.port)
            user = try XCTUnwrap(db.query("SELECT current_user").string(0, 0))
            database = try XCTUnwrap(db.query("SELECT current_database()").string(0, 0))
            password = URLComponents(string: try PostgresTestServer.url)?.password
        }
    }

    /// Runs `body` with `variables` set in the environment, then restores it.
    private func withEnvironment(_ variables: [String: String], _ body: () throws -> Void) throws {
        let saved = variables.keys.map { ($0, getenv($0).map { String(cString: $0) }) }
        for (name, value) in variables { setenv(name, value, 1) }
        defer {
            for (name, value) in saved {
                if let value { setenv(name, value, 1) } else { unsetenv(name) }
            }
        }
        try body()
    }

    /// A port on 127.0.0.1 that was free a moment ago, nothing listening on it.
    private func closedPort() throws -> UInt16 {
        let s = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(s) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        try withUnsafeMutablePointer(to: &address) {
            try $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                guard bind(s, $0, length) == 0, getsockname(s, $0, &length) == 0 else { throw TestRefusal(description: "bind failed") }
            }
        }
        return UInt16(bigEndian: address.sin_port)
    }
}
