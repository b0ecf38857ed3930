#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import LarderJSON
import XCTest

/// Encrypted caches through the real binary: the key file and its mode, keys
/// across processes, and a rekey killed mid-way and finished by the next.
final class EncryptionProcessTests: XCTestCase {
    private var dir = ""
    private let oldKey = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="
    private let newKey = "HxwdHhsZGhcYFRYTFBESDxAODA0KCwgJBgcEBQIDAAE="

    override func setUp() {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("larder-e2e-encryption-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: dir)
    }

    private func keyFile(_ base64: String, mode: mode_t) -> String {
        let path = dir + "/key-\(mode)"
        _ = FileManager.default.createFile(atPath: path, contents: Data((base64 + "\n").utf8))
        chmod(path, mode)
        return path
    }

    private func start(_ arguments: [String] = [], key: String? = nil) throws -> LarderProcess {
        let larder = try LarderProcess(["--store", dir + "/store"] + arguments)
        if let key {
            XCTAssertNotNil(larder.request("initialize", params: ["encryption": ["key": .string(key)]])?["result"])
        }
        return larder
    }

    func testAKeyFileOthersCanReadIsRefusedAndAPrivateOneIsUsed() throws {
        let open = try LarderProcess(["--store", dir + "/store", "--key-file", keyFile(oldKey, mode: 0o644)])
        XCTAssertEqual(open.waitForExit(), 2)
        let stderr = open.stderrAtEnd(timeout: 1)
        XCTAssertTrue(stderr.contains("may be read by its group or others (mode 644)") && stderr.contains("chmod 600"), stderr)

        let larder = try start(["--key-file", keyFile(oldKey, mode: 0o600)])
        XCTAssertEqual(larder.request("cache.open", params: ["cache": "s", "encrypted": true])?["result"]?["config"]?["encrypted"], true)
        XCTAssertEqual(larder.request("cache.set", params: ["cache": "s", "key": "k", "value": "v"])?["result"]?["stored"], true)
        assertCleanExit(larder)

        // The same key given by initialize reads it; another does not; none neither.
        let same = try start(key: oldKey)
        XCTAssertEqual(same.request("cache.get", params: ["cache": "s", "key": "k"])?["result"]?["value"], "v")
        assertCleanExit(same)
        let other = try start(key: newKey)
        let refused = other.request("cache.get", params: ["cache": "s", "key": "k"])?["error"]
        XCTAssertEqual(refused?["code"], -31060)
        XCTAssertEqual(refused?["data"], ["cache": "s", "reason": "keyMismatch"])
        assertCleanExit(other)
        let none = try start()
        XCTAssertEqual(none.request("cache.set", params: ["cache": "s", "key": "k", "value": "x"])?["error"]?["data"]?["reason"], "keyRequired")
        XCTAssertEqual(none.request("cache.drop", params: ["cache": "s"])?["result"], ["dropped": true], "dropping needs no key")
        assertCleanExit(none)
    }

    /// A FIFO nothing writes to blocked the start for ever: the open(2) of
    /// a FIFO for reading waits for a writer.
    func testAKeyFileThatIsAFIFOStopsTheStartSayingWhy() throws {
        let fifo = dir + "/key-fifo"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let larder = try LarderProcess(["--store", dir + "/store", "--key-file", fifo])
        let code = larder.waitForExit(timeout: 10)
        if code == nil { larder.kill() }
        XCTAssertEqual(code, 2)
        let stderr = larder.stderrAtEnd(timeout: 1)
        XCTAssertTrue(stderr.contains("key file \(fifo) is a FIFO, not a regular file"), stderr)
    }

    func testAKeyFileOfThirtyTwoCharactersOfTextIsRefusedAsAmbiguous() throws {
        let path = dir + "/key-text"
        // 32 hex digits: 16 bytes written as text, or 32 bytes that are all text?
        _ = FileManager.default.createFile(atPath: path, contents: Data("00112233445566778899aabbccddeeff".utf8), attributes: [.posixPermissions: 0o600])
        let larder = try LarderProcess(["--store", dir + "/store", "--key-file", path])
        XCTAssertEqual(larder.waitForExit(), 2)
        let stderr = larder.stderrAtEnd(timeout: 1)
        XCTAssertTrue(stderr.contains("holds 32 characters of text"), stderr)
        XCTAssertTrue(stderr.contains("64 hexadecimal digits, base64 of 32 bytes (44 characters), or 32 raw bytes"), stderr)
    }

    func testARekeyKilledMidwayLosesNothingAndTheNextFinishesIt() throws {
        let larder = try start(key: oldKey)
        XCTAssertNotNil(larder.request("cache.open", params: ["cache": "s", "encrypted": true])?["result"])
        var entries: [JSON] = []
        for i in 0..<3000 { entries.append(["key": .string("k\(i)"), "value": .string("value \(i)")]) }
        XCTAssertEqual(larder.request("cache.setMany", params: ["cache": "s", "entries": .array(entries)])?["result"]?["stored"], 3000)
        // Small batches, and the kill after the second report: most of the cache is still under the old key.
        XCTAssertTrue(larder.send(json: ["jsonrpc": "2.0", "id": 7, "method": "cache.rekey",
                                         "params": ["cache": "s", "key": .string(newKey), "batchSize": 10, "workDoneToken": "t"]]))
        var reports = 0
        while reports < 2, let m = larder.readMessage() {
            if m["params"]?["value"]?["kind"] == "report" { reports += 1 }
            XCTAssertNil(m["id"], "answered before it was killed: \(m)")
        }
        larder.kill()
        _ = larder.waitForExit()

        let stopped = try start(key: oldKey)
        let refused = stopped.request("cache.get", params: ["cache": "s", "key": "k1"])?["error"]
        XCTAssertEqual(refused?["data"]?["reason"], "rekeyInterrupted", "\(String(describing: refused))")
        let finished = try XCTUnwrap(stopped.request("cache.rekey", params: ["cache": "s", "key": .string(newKey)], id: 8)?["result"])
        XCTAssertEqual(finished["resumed"], true)
        let resealed = try XCTUnwrap(finished["resealed"]?.numberValue?.int)
        XCTAssertTrue(resealed > 0 && resealed < 3000, "only what the first run left: \(resealed)")
        XCTAssertEqual(stopped.request("cache.get", params: ["cache": "s", "key": "k2999"])?["result"]?["value"], "value 2999")
        assertCleanExit(stopped)

        let next = try start(key: newKey)
        let all = try XCTUnwrap(next.request("cache.getMany", params: ["cache": "s", "keys": .array((0..<3000).map { .string("k\($0)") })])?["result"])
        for i in 0..<3000 where all["entries"]?["k\(i)"]?["value"] != .string("value \(i)") {
            XCTFail("k\(i): \(String(describing: all["entries"]?["k\(i)"]))")
            break
        }
        assertCleanExit(next)
    }
}
