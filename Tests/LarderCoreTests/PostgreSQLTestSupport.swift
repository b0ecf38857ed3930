#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import XCTest
import LarderTestSupport
@testable import LarderCore
@testable import LarderPostgreSQL
import LarderStorage

/// The PostgreSQL server the tests run against (`PostgresTestURL`), and
/// the harness's control of it.
enum PostgresTestServer {
    static var url: String {
        get throws { try PostgresTestURL.value }
    }

    /// Runs the harness's pg_ctl with `arguments` ("stop", "-m", "immediate"; "start").
    static func control(_ arguments: String...) throws {
        try PostgresTestURL.control(arguments)
    }
}

/// Base class: each test works in a schema of its own (made at setUp,
/// dropped with everything in it at tearDown), so that tests never see each
/// other's tables, nor those of a database someone pointed them at.
class PostgresTestCase: XCTestCase {
    private(set) var url = ""
    private(set) var schema = ""
    private var opened: [PostgresConnection] = []

    override func setUpWithError() throws {
        try super.setUpWithError()
        url = try PostgresTestServer.url
        schema = "larder_test_\(getpid())_\(UInt32.random(in: 0...UInt32.max))"
        let admin = try PostgresConnection(url)
        try admin.execute("CREATE SCHEMA \(schema)")
    }

    override func tearDownWithError() throws {
        for connection in opened { connection.close() }
        opened = []
        if !schema.isEmpty {
            // The server may have been stopped by the test; a fault test restarts it before it ends.
            let admin = try PostgresConnection(url)
            try admin.execute("DROP SCHEMA \(schema) CASCADE")
        }
        try super.tearDownWithError()
    }

    /// A connection to the test server whose tables are this test's schema's.
    func connect(_ conninfo: String? = nil, settings: [String: String] = [:], timeout: Duration = PostgresConnection.defaultTimeout,
                 backoff: PostgresBackoff = PostgresBackoff()) throws -> PostgresConnection {
        var settings = settings
        settings["options"] = settings["options"] ?? "-c search_path=\(schema)"
        let connection = try PostgresConnection(conninfo ?? url, settings: settings, timeout: timeout, backoff: backoff)
        opened.append(connection)
        return connection
    }

    /// The number of rows in `table`.
    func count(_ table: String, on connection: PostgresConnection) throws -> Int64 {
        try XCTUnwrap(connection.query("SELECT count(*) FROM \(table)").int64(0, 0))
    }
}

/// Asserts that `body` throws a `StoreError` and returns it.
@discardableResult
func assertThrowsStoreError<T>(_ what: String, file: StaticString = #filePath, line: UInt = #line,
                               _ body: () throws(StoreError) -> T) -> StoreError? {
    do {
        let value = try body()
        XCTFail("\(what): expected an error, got \(value)", file: file, line: line)
        return nil
    } catch {
        return error
    }
}

/// Asserts that `error` is `storageUnavailable`, which may be retried.
func assertUnavailable(_ error: StoreError?, file: StaticString = #filePath, line: UInt = #line) {
    guard case .storageUnavailable = error else {
        XCTFail("expected storageUnavailable, got \(error.map { "\($0)" } ?? "no error")", file: file, line: line)
        return
    }
    XCTAssertTrue(error!.isRetryable, file: file, line: line)
}

/// The SQLSTATE of a `postgreSQL` error.
func sqlState(_ error: StoreError?) -> String? {
    if case .postgreSQL(let state, _) = error { return state }
    return nil
}

/// Seconds since `start`.
func seconds(since start: ContinuousClock.Instant) -> Double {
    let elapsed = (ContinuousClock.now - start).components
    return Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
}

/// A TCP proxy in front of the server that holds every chunk of bytes for
/// `latency` before passing it on, in each direction: a network whose round
/// trip takes twice that, so that round trips can be counted by the time
/// they take. Connects to the server where `connection` is connected (a
/// host and port, or a Unix socket's directory and port).
final class LatencyProxy: @unchecked Sendable {
    let port: UInt16
    private let listener: Int32
    private let latency: Duration
    private let upstreamHost: String
    private let upstreamPort: UInt16
    private let lock = NSLock()
    private var sockets: [Int32] = []

    init(to connection: PostgresConnection, latency: Duration) throws {
        self.latency = latency
        upstreamHost = try XCTUnwrap(connection.host)
        upstreamPort = try XCTUnwrap(UInt16(XCTUnwrap(connection.port)))
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = Self.loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && listen(listener, 8) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        guard bound else { throw TestRefusal(description: "proxy: cannot listen, errno \(errno)") }
        self.listener = listener
        port = UInt16(bigEndian: address.sin_port)
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// Settings that send a connection through the proxy instead of straight to the server.
    var settings: [String: String] { ["host": "127.0.0.1", "hostaddr": "127.0.0.1", "port": String(port)] }

    /// Stops accepting and cuts every connection through the proxy.
    func stop() {
        lock.lock()
        defer { lock.unlock() }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for s in sockets { shutdown(s, Int32(SHUT_RDWR)) }
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            guard let server = connectUpstream() else {
                close(client)
                continue
            }
            lock.lock()
            sockets += [client, server]
            lock.unlock()
            Thread.detachNewThread { [self] in forward(from: client, to: server) }
            Thread.detachNewThread { [self] in forward(from: server, to: client) }
        }
    }

    private func forward(from source: Int32, to destination: Int32) {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        defer {
            shutdown(destination, Int32(SHUT_WR))
        }
        while true {
            let n = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            guard n > 0 else { return }
            PostgresConnection.sleep(until: ContinuousClock.now + latency)
            var sent = 0
            while sent < n {
                let m = buffer.withUnsafeBytes { send(destination, $0.baseAddress! + sent, n - sent, Int32(MSG_NOSIGNAL)) }
                guard m > 0 else { return }
                sent += m
            }
        }
    }

    private func connectUpstream() -> Int32? {
        if upstreamHost.hasPrefix("/") {
            let s = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let path = Array("\(upstreamHost)/.s.PGSQL.\(upstreamPort)".utf8CString)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                for (i, c) in path.prefix(raw.count - 1).enumerated() { raw[i] = UInt8(bitPattern: c) }
            }
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(s, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard connected == 0 else {
                close(s)
                return nil
            }
            return s
        }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(upstreamHost, String(upstreamPort), &hints, &found) == 0, let first = found else { return nil }
        defer { freeaddrinfo(found) }
        let s = socket(first.pointee.ai_family, first.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), first.pointee.ai_protocol)
        guard Glibc.connect(s, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 else {
            close(s)
            return nil
        }
        return s
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}
