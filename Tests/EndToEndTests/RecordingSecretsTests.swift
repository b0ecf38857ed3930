import Foundation
import LarderJSON
import XCTest

/// `--record` writes no secret (SPEC 6.10, 15.3): not the keys of
/// `initialize {encryption}`, `cache.rekey` or `--key-file`, not a store
/// URL's password, and none of an encrypted cache's groups, keys, values or
/// data, in either direction; the file is its owner's alone, and the
/// recording still replays.
final class RecordingSecretsTests: XCTestCase {
    private var directory = ""

    override func setUp() {
        directory = NSTemporaryDirectory() + "recording-secrets-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// 32 printable bytes, so that the file can be searched for them as they are and as base64.
    private static func key(_ letter: Character) -> (bytes: String, base64: String) {
        let bytes = String(repeating: letter, count: 8) + "-secret-key-bytes-" + "123456"
        return (bytes, Data(bytes.utf8).base64EncodedString())
    }

    private let fileKey = key("F"), sessionKey = key("S"), vaultKey = key("V"), newKey = key("N")
    /// Groups, keys, values and data of the encrypted cache.
    private let entrySecrets = [
        "grouphush", "innerhush", "keyhush1", "keyhush2", "keyhush3", "keyhush4", "keyhush5",
        "valuehush1", "datahush2", "valuehush3", "fetchedhush4", "notehush5", "keyhush6", "keyhush7", "tallyhush6", "tallyhush7", "migratedhush6",
        "keyhush8", "txnhush8",
    ]

    private func withUmask<T>(_ mask: mode_t, _ body: () throws -> T) rethrows -> T {
        let old = umask(mask)
        defer { umask(old) }
        return try body()
    }

    func testARecordingHoldsNoSecretIsPrivateAndReplays() throws {
        let keyPath = directory + "/key"
        XCTAssertTrue(FileManager.default.createFile(atPath: keyPath, contents: Data(fileKey.base64.utf8), attributes: [.posixPermissions: 0o600]))
        let recording = directory + "/session.transcript"
        let larder = try withUmask(0) {
            try LarderProcess(["--store", directory + "/store", "--clock", "2026-01-01T00:00:00Z", "--key-file", keyPath, "--record", recording])
        }
        func ok(_ method: String, _ params: JSON, id: Int, line: UInt = #line) {
            let answer = larder.request(method, params: params, id: .int(id), line: line)
            XCTAssertNotNil(answer?["result"], "\(method): \(answer?.description ?? "nothing")", line: line)
        }
        ok("initialize", ["encryption": ["key": .string(sessionKey.base64), "keys": ["vault": .string(vaultKey.base64)]],
                          "capabilities": ["events": true, "fetch": true, "migrationCallbacks": true]], id: 1)
        ok("cache.open", ["cache": "vault", "encrypted": true], id: 2)
        ok("cache.subscribe", ["cache": "vault", "withValues": true], id: 3)
        ok("cache.set", ["cache": "vault", "group": "grouphush.innerhush", "key": "keyhush1", "value": ["token": "valuehush1"]], id: 4)
        ok("cache.set", ["cache": "vault", "key": "keyhush2", "data": .string(Data("datahush2".utf8).base64EncodedString())], id: 5)
        ok("cache.setMany", ["cache": "vault", "entries": [["key": "keyhush3", "value": "valuehush3"]]], id: 6)
        ok("cache.get", ["cache": "vault", "group": "grouphush.innerhush", "key": "keyhush1"], id: 7)
        ok("cache.getMany", ["cache": "vault", "keys": ["keyhush2", "keyhush3", "keyhush1"]], id: 8)
        ok("cache.has", ["cache": "vault", "key": "keyhush3"], id: 9)
        ok("cache.touch", ["cache": "vault", "key": "keyhush3"], id: 10)
        ok("cache.keys", ["cache": "vault", "prefix": "keyhush"], id: 11)
        ok("cache.groups", ["cache": "vault", "prefix": "grouphush."], id: 12)
        // A miss asked of the client: its request names the key, its answer holds the value.
        XCTAssertTrue(larder.send(json: ["jsonrpc": "2.0", "id": 13, "method": "cache.getOrFetch", "params": ["cache": "vault", "key": "keyhush4"]]))
        guard let fetch = larder.readMessage(), let fetchID = fetch["id"] else { return XCTFail("no cache.fetch") }
        XCTAssertEqual(fetch["method"], "cache.fetch")
        XCTAssertTrue(larder.send(json: ["jsonrpc": "2.0", "id": fetchID, "result": ["value": "fetchedhush4"]]))
        XCTAssertEqual(larder.readUntilResponse(id: 13).last?["result"]?["fetched"], true)
        ok("schema.register", ["type": "Note", "version": "1", "fields": ["text": "string", "at": "date"]], id: 14)
        ok("object.put", ["cache": "vault", "key": "keyhush5", "type": "Note", "value": ["text": "notehush5", "at": "2025-06-01T12:30:00Z"]], id: 15)
        ok("object.get", ["cache": "vault", "key": "keyhush5", "type": "Note"], id: 16)
        // A transaction names its entries in its elements, and its answer holds their values.
        ok("cache.transaction", ["compare": [["cache": "vault", "key": "keyhush8", "absent": true]],
                                 "then": [["op": "set", "cache": "vault", "key": "keyhush8", "value": "txnhush8"],
                                          ["op": "get", "cache": "vault", "key": "keyhush8"]]], id: 35)
        // A migration asks the client about each object (migrate.object), and names the one it could not migrate.
        ok("schema.register", ["type": "Tally", "version": "1", "fields": ["n": "string"]], id: 30)
        ok("object.put", ["cache": "vault", "key": "keyhush6", "type": "Tally", "value": ["n": "tallyhush6"]], id: 31)
        ok("object.put", ["cache": "vault", "key": "keyhush7", "type": "Tally", "value": ["n": "tallyhush7"]], id: 32)
        ok("schema.register", ["type": "Tally", "version": "2", "fields": ["n": "string"],
                               "migrations": [["from": "1", "steps": [["op": "callback"]]]]], id: 33)
        XCTAssertTrue(larder.send(json: ["jsonrpc": "2.0", "id": 34, "method": "migrate.run", "params": ["cache": "vault", "type": "Tally"]]))
        var migrated: JSON?
        while migrated == nil, let message = larder.readMessage() {
            if message["method"] == "migrate.object", let id = message["id"] {
                let answer: JSON = message["params"]?["key"] == "keyhush6"
                    ? ["jsonrpc": "2.0", "id": id, "result": ["value": ["n": "migratedhush6"]]]
                    : ["jsonrpc": "2.0", "id": id, "error": ["code": 1, "message": "cannot say"]]
                XCTAssertTrue(larder.send(json: answer))
            } else if message["id"] == 34 {
                migrated = message
            }
        }
        XCTAssertEqual(migrated?["result"]?["migrated"], 1, migrated?.description ?? "")
        XCTAssertEqual(migrated?["result"]?["failed"], 1, migrated?.description ?? "")
        XCTAssertTrue(migrated?.description.contains("keyhush7") == true, "the server names the failed key: \(migrated?.description ?? "")")
        // Removed with its value: the event names both.
        let removed = larder.request("cache.remove", params: ["cache": "vault", "key": "keyhush3"], id: 17)
        XCTAssertEqual(removed?["result"]?["removed"], true)
        ok("cache.rekey", ["cache": "vault", "key": .string(newKey.base64)], id: 18)
        ok("cache.get", ["cache": "vault", "group": "grouphush.innerhush", "key": "keyhush1"], id: 19)
        // A refused key is no more written than a good one; nor is a key the server does not know.
        let refused = larder.request("cache.rekey", params: ["cache": "vault", "key": .string(Data(fileKey.bytes.utf8.dropLast()).base64EncodedString())], id: 20)
        XCTAssertEqual(refused?["error"]?["code"], -32602)
        let missing = larder.request("cache.get", params: ["cache": "vault", "key": "keyhush1"], id: 21)
        XCTAssertEqual(missing?["result"]?["found"], false)
        // A second initialize is refused, and its store's password is not written either.
        let again = larder.request("initialize", params: ["store": ["url": "postgresql://app:passhush1@127.0.0.1:1/db?password=passhush2"]], id: 22)
        XCTAssertNotNil(again?["error"])
        larder.closeStdin()
        XCTAssertEqual(larder.waitForExit(), 0)

        let attributes = try FileManager.default.attributesOfItem(atPath: recording)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600, "created under umask 000")
        let text = try String(contentsOfFile: recording, encoding: .utf8)
        assertHoldsNone(of: [fileKey.bytes, fileKey.base64, sessionKey.bytes, sessionKey.base64, vaultKey.bytes, vaultKey.base64,
                             newKey.bytes, newKey.base64, "passhush1", "passhush2"] + entrySecrets, in: text)
        XCTAssertTrue(text.contains(#""key":"[redacted]""#), text)
        XCTAssertTrue(text.contains(#""vault":"[redacted]""#), text)
        XCTAssertTrue(text.contains("// key-file: [redacted]"), text)
        XCTAssertTrue(text.contains("postgresql://app:***@127.0.0.1:1/db?password=***"), text)

        let (status, output) = try TranscriptReplayTests.replay([recording])
        XCTAssertEqual(status, 0, output + text)
    }

    /// A store URL in `initialize` that the server refuses is quoted in its
    /// error: the password is written as `***` in the request and matched as
    /// a pattern in the answer.
    func testAStorePasswordIsWrittenNowhere() throws {
        // A file that was there, readable by others, is made private before anything is appended.
        let recording = directory + "/store.transcript"
        XCTAssertTrue(FileManager.default.createFile(atPath: recording, contents: Data(), attributes: [.posixPermissions: 0o644]))
        let larder = try LarderProcess(["--memory", "--record", recording])
        let answer = larder.request("initialize", params: ["store": ["url": "host=db.internal password='pass hush3' dbname=app"]])
        XCTAssertEqual(answer?["error"]?["code"], -32602)
        XCTAssertTrue(answer?.description.contains("pass hush3") == true, "the server quotes the URL: \(answer?.description ?? "")")
        larder.closeStdin()
        XCTAssertEqual(larder.waitForExit(), 0)
        let attributes = try FileManager.default.attributesOfItem(atPath: recording)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        let text = try String(contentsOfFile: recording, encoding: .utf8)
        assertHoldsNone(of: ["pass hush3", "hush3"], in: text)
        XCTAssertTrue(text.contains("password=***"), text)
        let (status, output) = try TranscriptReplayTests.replay([recording])
        XCTAssertEqual(status, 0, output + text)
    }

    /// A plain cache in a session with a key is redacted until an answer
    /// shows it plain (`cache.open`, `cache.list`); after that it is written as sent.
    func testAPlainCacheIsWrittenAsSentOnceKnownPlain() throws {
        let recording = directory + "/plain.transcript"
        let larder = try LarderProcess(["--memory", "--clock", "2026-01-01T00:00:00Z", "--record", recording])
        XCTAssertNotNil(larder.request("initialize", params: ["encryption": ["key": .string(sessionKey.base64)]])?["result"])
        XCTAssertNotNil(larder.request("cache.set", params: ["cache": "plain", "key": "unknownhush", "value": "unknownvaluehush"], id: 2)?["result"])
        XCTAssertNotNil(larder.request("cache.open", params: ["cache": "plain"], id: 3)?["result"])
        XCTAssertNotNil(larder.request("cache.set", params: ["cache": "plain", "key": "clearkey", "value": "clearvalue"], id: 4)?["result"])
        larder.closeStdin()
        XCTAssertEqual(larder.waitForExit(), 0)
        let text = try String(contentsOfFile: recording, encoding: .utf8)
        assertHoldsNone(of: ["unknownhush", "unknownvaluehush", sessionKey.base64], in: text)
        XCTAssertTrue(text.contains(#""key":"clearkey","value":"clearvalue""#), text)
        let (status, output) = try TranscriptReplayTests.replay([recording])
        XCTAssertEqual(status, 0, output + text)
    }

    /// A key for named caches only (`encryption.keys`): other caches cannot
    /// be used encrypted, so they are written as sent.
    func testCachesWithoutAKeyAreWrittenAsSent() throws {
        let recording = directory + "/keyed.transcript"
        let larder = try LarderProcess(["--memory", "--clock", "2026-01-01T00:00:00Z", "--record", recording])
        XCTAssertNotNil(larder.request("initialize", params: ["encryption": ["keys": ["vault": .string(vaultKey.base64)]]])?["result"])
        XCTAssertNotNil(larder.request("cache.set", params: ["cache": "vault", "key": "vaulthush", "value": "vaultvaluehush"], id: 2)?["result"])
        XCTAssertNotNil(larder.request("cache.set", params: ["key": "clearkey", "value": "clearvalue"], id: 3)?["result"])
        larder.closeStdin()
        XCTAssertEqual(larder.waitForExit(), 0)
        let text = try String(contentsOfFile: recording, encoding: .utf8)
        assertHoldsNone(of: ["vaulthush", "vaultvaluehush", vaultKey.base64], in: text)
        XCTAssertTrue(text.contains(#""key":"clearkey","value":"clearvalue""#), text)
        let (status, output) = try TranscriptReplayTests.replay([recording])
        XCTAssertEqual(status, 0, output + text)
    }

    private func assertHoldsNone(of secrets: [String], in text: String, line: UInt = #line) {
        for secret in secrets {
            XCTAssertFalse(text.contains(secret), "\(secret) in the recording:\n\(text)", line: line)
            let base64 = Data(secret.utf8).base64EncodedString()
            XCTAssertFalse(text.contains(base64), "\(secret) as base64 (\(base64)) in the recording:\n\(text)", line: line)
        }
    }
}
