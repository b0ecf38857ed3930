#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import LarderJSON
import LarderPostgreSQL
import LarderTestSupport
import XCTest

/// Sidecars on two hosts over one PostgreSQL server on a third, linked by a
/// network: the hosts `.ci/many-hosts` makes (network namespaces and veth
/// pairs). Each sidecar reaches the server at its own address, over its own
/// link. Without those hosts the tests cannot run: under CI=true they fail,
/// saying why; elsewhere they are skipped, saying why.
final class ManyHostsTests: SharedStoreTests {
    /// Each application host's namespace and the server's address from it.
    private var hosts: [(namespace: String, server: String)] = []
    private var store: PostgresTestStore?
    private var started = 0

    override func setUpWithError() throws {
        try super.setUpWithError()
        guard let text = ProcessInfo.processInfo.environment["LARDER_TEST_HOSTS"], !text.isEmpty else {
            try TestRefusal.refuse("LARDER_TEST_HOSTS is not set: run these tests under .ci/many-hosts, which makes the hosts (as root)")
        }
        hosts = text.split(separator: " ").compactMap {
            let parts = $0.split(separator: "=", maxSplits: 1).map(String.init)
            return parts.count == 2 ? (parts[0], parts[1]) : nil
        }
        XCTAssertEqual(hosts.count, 2, text)
        store = try PostgresTestStore("hosts")
        started = 0
    }

    override func tearDown() {
        if (try? PostgresTestURL.control(["status"])) == nil { try? PostgresTestURL.control(["start"]) }
        store?.drop()
        super.tearDown()
    }

    /// The test store's URL with the server's address as `host` sees it.
    private func url(from host: Int) throws -> String {
        let local = try XCTUnwrap(store).url
        let address = hosts[host].server
        // postgresql://user@127.0.0.1:PORT/db → the same with the host's address.
        return local.replacingOccurrences(of: "@127.0.0.1:", with: "@\(address):")
    }

    /// A sidecar on application host `host` (0 or 1).
    private func sidecar(on host: Int, coherence: String = "strict") throws -> LarderProcess {
        try LarderProcess(["--store", try url(from: host), "--pg-schema", try XCTUnwrap(store).schema, "--pg-coherence", coherence],
                          launcher: ["/usr/sbin/ip", "netns", "exec", hosts[host].namespace])
    }

    /// The shared-store tests place their first process on host A, the next on host B.
    override func sidecar() throws -> LarderProcess {
        defer { started += 1 }
        return try sidecar(on: started % 2)
    }

    override func testADiskLimitHoldsWhileTwoSidecarsWrite() throws { try super.testADiskLimitHoldsWhileTwoSidecarsWrite() }
    override func testMigrateRunFromTwoSidecarsMigratesEachObjectOnce() throws { try super.testMigrateRunFromTwoSidecarsMigratesEachObjectOnce() }

    func testEachSidecarReachesTheServerOnlyOverItsOwnLink() throws {
        // The loopback address of an application host is its own: no server there.
        let local = try LarderProcess(["--store", try XCTUnwrap(store).url, "--pg-schema", try XCTUnwrap(store).schema],
                                      launcher: ["/usr/sbin/ip", "netns", "exec", hosts[0].namespace])
        XCTAssertEqual(local.waitForExit(), 2, "no server on host A's own loopback")
        XCTAssertTrue(local.stderrAtEnd().contains("storage unavailable"))
        let a = try sidecar(on: 0)
        let path = a.request("initialize", params: [:])?["result"]?["store"]?["path"]?.stringValue
        XCTAssertTrue(path?.contains("@\(hosts[0].server):") == true, path ?? "no answer")
    }

    /// Strict coherence across hosts: a write A acknowledged is what B reads next.
    func testAWriteAcknowledgedOnOneHostIsReadOnTheOther() throws {
        let a = try sidecar(on: 0), b = try sidecar(on: 1)
        for n in 1...20 {
            XCTAssertEqual(a.request("cache.set", params: ["key": "k", "value": .int(n)], id: .int(n))?["result"]?["stored"], true)
            XCTAssertEqual(b.request("cache.get", params: ["key": "k"], id: .int(n))?["result"]?["value"], .int(n),
                           "B read what A acknowledged, not its own memory tier's copy")
            let other = "from b \(n)"
            XCTAssertEqual(b.request("cache.set", params: ["key": "b", "value": .string(other)], id: .int(100 + n))?["result"]?["stored"], true)
            XCTAssertEqual(a.request("cache.get", params: ["key": "b"], id: .int(100 + n))?["result"]?["value"], .string(other))
        }
    }

    /// Notify coherence across hosts: B asks no one before answering from
    /// memory, and reads what A acknowledged once the notification has
    /// crossed (well within a second here: SPEC 6.12 gives the measured delay).
    func testNotifyCoherenceReadsAnotherHostsWriteWithinTheNotificationsDelay() throws {
        let a = try sidecar(on: 0, coherence: "notify"), b = try sidecar(on: 1, coherence: "notify")
        XCTAssertEqual(b.request("initialize", params: [:])?["result"]?["store"]?["coherence"], "notify")
        var id = 10
        for n in 1...20 {
            id += 1
            XCTAssertEqual(a.request("cache.set", params: ["key": "k", "value": .int(n)], id: .int(id))?["result"]?["stored"], true)
            let acknowledged = ContinuousClock.now
            var seen: JSON?
            while seen != .int(n) && ContinuousClock.now - acknowledged < .seconds(2) {
                id += 1
                seen = b.request("cache.get", params: ["key": "k"], id: .int(id))?["result"]?["value"]
            }
            XCTAssertEqual(seen, .int(n), "B read A's write \(n) within 2 s")
        }
    }

    /// Host A's link cut silently on the database host's side under load
    /// (`ip link set DEV down`: packets dropped, nothing reset), then
    /// brought up again (see `NetworkCut`).
    func testASilentCutOfOneHostsLinkHoldsNoRequestPastTheTimeoutAndServiceResumesWhenItComesBack() throws {
        let link = try linkOnTheDatabaseHost(to: 0)
        let arguments = ["--store", try url(from: 0), "--pg-schema", try XCTUnwrap(store).schema] + NetworkCut.arguments
        let launcher = ["/usr/sbin/ip", "netns", "exec", hosts[0].namespace]
        var cut = NetworkCut(try LarderProcess(arguments, launcher: launcher), fresh: try LarderProcess(arguments, launcher: launcher))
        addTeardownBlock { _ = try? Self.ip(["link", "set", link, "up"]) }
        let figures = try cut.run(cut: { try Self.ip(["link", "set", link, "down"]) }, restore: { try Self.ip(["link", "set", link, "up"]) })
        print("network cut of a link: \(figures)")
    }

    /// The database host's end of the link to application host `host`: the
    /// device holding the server's address as that host sees it (the tests
    /// run on the database host).
    private func linkOnTheDatabaseHost(to host: Int) throws -> String {
        let line = try Self.ip(["-o", "-4", "addr", "show", "to", hosts[host].server + "/32"])
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count > 1 else { throw XCTSkip("no device holds \(hosts[host].server) here: \(line)") }
        return String(fields[1].split(separator: "@")[0])
    }

    @discardableResult
    private static func ip(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw TestRefusal(description: "ip \(arguments.joined(separator: " ")) failed") }
        return text
    }

    private static func increments(_ ids: Range<Int>, key: String) -> [UInt8] {
        Array((ids.map {
            JSON.object(["jsonrpc": "2.0", "id": .int($0), "method": "cache.increment", "params": ["key": .string(key)]]).description
        }.joined(separator: "\n") + "\n").utf8)
    }

    /// Two sidecars on each host add to one counter in bursts of 50, each
    /// written to all four before any answer is read: every increment
    /// counts, once, whichever host made it (SPEC 6.14).
    func testIncrementsFromBothHostsAllCount() throws {
        let sidecars = try [sidecar(on: 0), sidecar(on: 1), sidecar(on: 0), sidecar(on: 1)]
        var sums = Set<Int>(), id = 0
        for _ in 0..<5 {
            for s in sidecars {
                XCTAssertTrue(s.send(bytes: Self.increments(id..<id + 50, key: "hits")))
                id += 50
            }
            for s in sidecars {
                for _ in 0..<50 {
                    let answer = try XCTUnwrap(s.readMessage(timeout: 30))
                    sums.insert(try XCTUnwrap(answer["result"]?["value"]?.numberValue?.int, "\(answer)"))
                }
            }
        }
        XCTAssertEqual(sums, Set(1...1000), "each increment answered a sum of its own")
        XCTAssertEqual(sidecars[1].request("cache.get", params: ["key": "hits"], timeout: 30)?["result"]?["value"], 1000)
    }

    /// Both hosts keep incrementing one counter while the server is stopped
    /// (`-m immediate`) and started again. Every acknowledged increment is in
    /// the count once: the sums answered are distinct, and the count is at
    /// least their number; at most the refused ones (-31003, some of whose
    /// commits may have been made before the answer was lost, SPEC 6.12) are
    /// in it besides.
    func testIncrementsFromBothHostsWhileTheServerRestartsCountEachAcknowledgedOnce() throws {
        let a = try sidecar(on: 0), b = try sidecar(on: 1)
        var sums: [Int] = [], refused = 0, id = 0
        for round in 0..<8 {
            if round == 3 { try PostgresTestURL.control(["stop", "-m", "immediate"]) }
            if round == 5 { try PostgresTestURL.control(["start"]) }
            for s in [a, b] {
                XCTAssertTrue(s.send(bytes: Self.increments(id..<id + 100, key: "hits")))
                id += 100
                for _ in 0..<100 {
                    let m = try XCTUnwrap(s.readMessage(timeout: 30))
                    if let sum = m["result"]?["value"]?.numberValue?.int {
                        sums.append(sum)
                    } else {
                        XCTAssertEqual(m["error"]?["code"], -31003, "\(m)")
                        refused += 1
                    }
                }
            }
            if round >= 5 { usleep(300_000) }  // the sidecars reconnect after a backoff
        }
        XCTAssertEqual(sums.count + refused, 1600, "every increment answered")
        XCTAssertGreaterThanOrEqual(sums.count, 600, "the rounds before the crash")
        XCTAssertGreaterThanOrEqual(refused, 400, "the rounds while the server was down")
        XCTAssertEqual(Set(sums).count, sums.count, "no sum answered twice")
        let count = try XCTUnwrap(try sidecar(on: 1).request("cache.get", params: ["key": "hits"], timeout: 30)?["result"]?["value"]?.numberValue?.int)
        XCTAssertGreaterThanOrEqual(count, sums.max() ?? 0, "an acknowledged sum is in the count")
        XCTAssertGreaterThanOrEqual(count, sums.count, "every acknowledged increment is in the count")
        XCTAssertLessThanOrEqual(count, sums.count + refused)
    }

    /// The server stopped and started again while both hosts keep writing:
    /// what either acknowledged is there, what either was refused is not.
    func testTheServerRestartedUnderLoadFromBothHostsLosesNothingAcknowledged() throws {
        let a = try sidecar(on: 0), b = try sidecar(on: 1)
        var acknowledged: Set<String> = [], refused: Set<String> = []
        for round in 0..<8 {
            if round == 3 { try PostgresTestURL.control(["stop", "-m", "immediate"]) }
            if round == 5 { try PostgresTestURL.control(["start"]) }
            for (name, s) in [("a", a), ("b", b)] {
                let keys = (0..<100).map { "\(name)-\(round)-\($0)" }
                let burst = keys.enumerated().map { i, k in
                    JSON.object(["jsonrpc": "2.0", "id": .int(i), "method": "cache.set", "params": ["key": .string(k), "value": .string(k)]]).description
                }.joined(separator: "\n") + "\n"
                XCTAssertTrue(s.send(bytes: Array(burst.utf8)))
                for _ in keys {
                    guard let m = s.readMessage(timeout: 30), let i = m["id"]?.numberValue?.int else { continue }
                    if m["result"]?["stored"] == true { acknowledged.insert(keys[i]) }
                    if m["error"]?["code"] == -31003 { refused.insert(keys[i]) }
                }
            }
            if round >= 5 { usleep(300_000) }  // the sidecars reconnect after a backoff
        }
        XCTAssertEqual(acknowledged.count + refused.count, 1600, "every write answered: stored, or refused as unavailable")
        XCTAssertGreaterThanOrEqual(acknowledged.count, 600, "the rounds before the crash")
        XCTAssertGreaterThanOrEqual(refused.count, 400, "the rounds while the server was down")
        let all = acknowledged.union(refused).sorted().map(JSON.string)
        let c = try sidecar(on: 1)
        let entries = c.request("cache.getMany", params: ["keys": .array(all)], timeout: 30)?["result"]?["entries"]
        for k in acknowledged { XCTAssertEqual(entries?[k]?["found"], true, "\(k) was acknowledged but lost") }
        for k in refused { XCTAssertEqual(entries?[k]?["found"], false, "\(k) was refused but stored") }
    }
}
