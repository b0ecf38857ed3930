import Foundation
import LarderJSON
import LarderPostgreSQL
import LarderTestSupport
import XCTest

/// A sidecar whose PostgreSQL server crashes (`pg_ctl stop -m immediate`)
/// and comes back: callers are told the storage is unavailable and may
/// retry, the sidecar stays up, reconnects by itself, and serves again; what
/// it acknowledged is there, what it refused is not.
final class PostgreSQLServerFaultTests: XCTestCase {
    private var store: PostgresTestStore?

    override func setUpWithError() throws {
        store = try PostgresTestStore("fault")
    }

    override func tearDown() {
        if (try? PostgresTestURL.control(["status"])) == nil { try? PostgresTestURL.control(["start"]) }
        store?.drop()
        super.tearDown()
    }

    private func set(_ larder: LarderProcess, _ key: String, id: Int) -> JSON? {
        larder.request("cache.set", params: ["key": .string(key), "value": .string("value of \(key)")], id: .int(id))
    }

    func testACrashedServerIsUnavailableThenTheSidecarServesAgain() throws {
        let larder = try LarderProcess(try XCTUnwrap(store).arguments)
        XCTAssertEqual(set(larder, "before", id: 1)?["result"]?["stored"], true)

        try PostgresTestURL.control(["stop", "-m", "immediate"])
        let refused = set(larder, "during", id: 2)
        XCTAssertEqual(refused?["error"]?["code"], -31003, "\(refused.map(\.description) ?? "no answer")")
        XCTAssertEqual(refused?["error"]?["data"]?["retryable"], true)
        XCTAssertTrue(refused?["error"]?["message"]?.stringValue?.hasPrefix("storage unavailable") == true)
        // Still up, and still answering what needs no store.
        XCTAssertEqual(larder.request("cache.get", params: ["key": 1], id: 3)?["error"]?["code"], -32602)

        try PostgresTestURL.control(["start"])
        // The sidecar reconnects on its own, after a backoff: a caller retries.
        var stored: JSON?
        let deadline = Date().addingTimeInterval(15)
        var id = 10
        repeat {
            id += 1
            let answer = set(larder, "after", id: id)
            if answer?["result"] != nil { stored = answer; break }
            XCTAssertEqual(answer?["error"]?["code"], -31003, "\(answer.map(\.description) ?? "no answer")")
            usleep(200_000)
        } while Date() < deadline
        XCTAssertEqual(stored?["result"]?["stored"], true, "served again once the server was back")

        let keys = larder.request("cache.keys", id: 100)?["result"]?["keys"]?.arrayValue?.compactMap(\.stringValue)
        XCTAssertEqual(keys, ["after", "before"], "acknowledged writes are there, the refused one is not")
        larder.closeStdin()
        XCTAssertEqual(larder.waitForExit(), 0)

        // A sidecar started afresh sees the same.
        let next = try LarderProcess(try XCTUnwrap(store).arguments)
        XCTAssertEqual(next.request("cache.get", params: ["key": "before"])?["result"]?["value"], "value of before")
        XCTAssertEqual(next.request("cache.get", params: ["key": "during"], id: 2)?["result"]?["found"], false)
    }

    /// The network to the server cut silently under load, through a proxy
    /// that stops forwarding (`BlackholeProxy`), then restored (see `NetworkCut`).
    func testASilentNetworkCutHoldsNoRequestPastTheTimeoutAndServiceResumesWhenItEnds() throws {
        let store = try XCTUnwrap(store)
        guard let (proxy, url) = try BlackholeProxy.inFront(of: store.url) else {
            throw XCTSkip("the test server is not named by an IPv4 address and port: \(PostgresStore.redacted(store.url))")
        }
        defer { proxy.stop() }
        let arguments = ["--store", url, "--pg-schema", store.schema] + NetworkCut.arguments
        var cut = NetworkCut(try LarderProcess(arguments), fresh: try LarderProcess(arguments))
        let figures = try cut.run(cut: { proxy.cut(true) }, restore: { proxy.cut(false) })
        print("network cut through a proxy: \(figures)")
    }

    /// A crash while bursts of writes keep coming: every write acknowledged
    /// is there after the restart, and every write refused is not (each
    /// burst is one transaction: all of it, or none of it).
    func testACrashUnderLoadLosesNothingAcknowledgedAndShowsNothingRefused() throws {
        let larder = try LarderProcess(try XCTUnwrap(store).arguments)
        let bursts = 12, size = 250
        var acknowledged: Set<Int> = [], refused: Set<Int> = []
        for b in 0..<bursts {
            let ids = (b * size + 1)...(b * size + size)
            let burst = ids.map {
                JSON.object(["jsonrpc": "2.0", "id": .int($0), "method": "cache.set",
                             "params": ["key": .string("k\($0)"), "value": .int($0)]]).description
            }.joined(separator: "\n") + "\n"
            XCTAssertTrue(larder.send(bytes: Array(burst.utf8)))
            // The crash falls while the fourth burst is on its way in.
            if b == 3 { try PostgresTestURL.control(["stop", "-m", "immediate"]) }
            for _ in ids {
                guard let m = larder.readMessage(timeout: 30), let id = m["id"]?.numberValue?.int else { continue }
                if m["result"]?["stored"] == true { acknowledged.insert(id) }
                if m["error"]?["code"] == -31003 { refused.insert(id) }
            }
        }
        XCTAssertEqual(acknowledged.count + refused.count, bursts * size, "every write is answered, stored or refused as unavailable")
        XCTAssertGreaterThanOrEqual(acknowledged.count, 3 * size)
        XCTAssertGreaterThanOrEqual(refused.count, 8 * size)
        larder.kill(SIGKILL)
        _ = larder.waitForExit()

        try PostgresTestURL.control(["start"])
        let next = try LarderProcess(try XCTUnwrap(store).arguments)
        let keys = (1...(bursts * size)).map { JSON.string("k\($0)") }
        let entries = next.request("cache.getMany", params: ["keys": .array(keys)], timeout: 30)?["result"]?["entries"]
        for k in 1...(bursts * size) {
            let found = entries?["k\(k)"]?["found"] == true
            if acknowledged.contains(k) { XCTAssertTrue(found, "k\(k) was acknowledged but lost") }
            if refused.contains(k) { XCTAssertFalse(found, "k\(k) was refused but stored") }
        }
    }

    func testASidecarStartedWhileTheServerIsDownSaysWhyAndExits() throws {
        try PostgresTestURL.control(["stop", "-m", "immediate"])
        let larder = try LarderProcess(try XCTUnwrap(store).arguments)
        XCTAssertEqual(larder.waitForExit(), 2)
        let stderr = larder.stderrAtEnd()
        XCTAssertTrue(stderr.contains("cannot open the store"), stderr)
        XCTAssertTrue(stderr.contains("storage unavailable"), stderr)
    }

    /// `$LARDER_STORE` may name the server as `--store` does, and
    /// `--pg-schema` goes with either; beside a directory it is refused.
    func testTheStoreMayComeFromTheEnvironmentWithASchema() throws {
        let (url, schema) = (try XCTUnwrap(store).url, try XCTUnwrap(store).schema)
        let larder = try LarderProcess(["--pg-schema", schema], environment: ["LARDER_STORE": url])
        let store = larder.request("initialize", params: [:])?["result"]?["store"]
        XCTAssertEqual(store?["path"]?.stringValue?.hasSuffix(" schema \(schema)"), true, "\(store.map(\.description) ?? "no answer")")
        XCTAssertEqual(store?["persistent"], true)
        larder.closeStdin()
        XCTAssertEqual(larder.waitForExit(), 0)

        let directory = NSTemporaryDirectory() + "larder-not-pg-" + UUID().uuidString
        let refused = try LarderProcess(["--pg-schema", schema], environment: ["LARDER_STORE": directory])
        XCTAssertEqual(refused.waitForExit(), 2)
        XCTAssertTrue(refused.stderrAtEnd().contains("--pg-schema needs a store on PostgreSQL"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory), "nothing was created")
    }

    /// `--pg-coherence` and `initialize`'s `store.coherence` choose how the
    /// sidecar learns of others' commits; the answer says which it keeps.
    func testCoherenceIsChosenOnTheCommandLineOrInInitialize() throws {
        let (url, schema) = (try XCTUnwrap(store).url, try XCTUnwrap(store).schema)
        let notify = try LarderProcess(["--store", url, "--pg-schema", schema, "--pg-coherence", "notify"])
        XCTAssertEqual(notify.request("initialize", params: [:])?["result"]?["store"]?["coherence"], "notify")
        notify.closeStdin()
        XCTAssertEqual(notify.waitForExit(), 0)

        let larder = try LarderProcess(["--memory"])
        let chosen = larder.request("initialize", params: ["store": ["url": .string(url), "schema": .string(schema), "coherence": "poll"]])
        XCTAssertEqual(chosen?["result"]?["store"]?["coherence"], "poll", "\(chosen.map(\.description) ?? "no answer")")
        let plain = try LarderProcess(["--store", url, "--pg-schema", schema])
        XCTAssertEqual(plain.request("initialize", params: [:])?["result"]?["store"]?["coherence"], "strict", "strict unless told")
        plain.closeStdin()
        XCTAssertEqual(plain.waitForExit(), 0)

        larder.closeStdin()
        XCTAssertEqual(larder.waitForExit(), 0)

        let refusals: [(JSON, String)] = [
            (["url": .string(url), "coherence": "notfy"], "must be strict, notify or poll, not \"notfy\" (did you mean notify?)"),
            (["path": "/tmp/x", "coherence": "notify"], "coherence is for a store on PostgreSQL"),
        ]
        for (store, expected) in refusals {
            let refusing = try LarderProcess(["--memory"])
            let error = refusing.request("initialize", params: ["store": store])?["error"]
            XCTAssertEqual(error?["code"], -32602)
            XCTAssertEqual(error?["message"]?.stringValue?.contains(expected), true, "\(String(describing: error))")
            refusing.closeStdin()
            XCTAssertEqual(refusing.waitForExit(), 0)
        }

        let refused = try LarderProcess(["--store", url, "--pg-coherence", "strcit"])
        XCTAssertEqual(refused.waitForExit(), 2)
        XCTAssertTrue(refused.stderrAtEnd().contains("--pg-coherence must be strict, notify or poll, not \"strcit\" (did you mean strict?)"))
        let memory = try LarderProcess(["--memory", "--pg-coherence", "notify"])
        XCTAssertEqual(memory.waitForExit(), 2)
        XCTAssertTrue(memory.stderrAtEnd().contains("--pg-coherence needs a store on PostgreSQL"))
    }

    /// `--pg-timeout` takes seconds, for a store on PostgreSQL only.
    func testThePostgreSQLTimeoutIsSecondsForAStoreOnPostgreSQL() throws {
        let (url, schema) = (try XCTUnwrap(store).url, try XCTUnwrap(store).schema)
        let larder = try LarderProcess(["--store", url, "--pg-schema", schema, "--pg-timeout", "0.5"])
        XCTAssertEqual(larder.request("cache.set", params: ["key": "k", "value": 1])?["result"]?["stored"], true)
        larder.closeStdin()
        XCTAssertEqual(larder.waitForExit(), 0)

        for value in ["0", "5s", "-1", "3601"] {
            let refused = try LarderProcess(["--store", url, "--pg-timeout", value])
            XCTAssertEqual(refused.waitForExit(), 2)
            XCTAssertTrue(refused.stderrAtEnd().contains("--pg-timeout must be a number of seconds from 0.1 to 3600, not \(value)"))
        }
        let memory = try LarderProcess(["--memory", "--pg-timeout", "2"])
        XCTAssertEqual(memory.waitForExit(), 2)
        XCTAssertTrue(memory.stderrAtEnd().contains("--pg-timeout needs a store on PostgreSQL"))
        let directory = NSTemporaryDirectory() + "larder-not-pg-" + UUID().uuidString
        let inDirectory = try LarderProcess(["--pg-timeout", "2"], environment: ["LARDER_STORE": directory])
        XCTAssertEqual(inDirectory.waitForExit(), 2)
        XCTAssertTrue(inDirectory.stderrAtEnd().contains("--pg-timeout needs a store on PostgreSQL"))
    }
}
