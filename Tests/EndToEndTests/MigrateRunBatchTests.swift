import Foundation
import LarderJSON
import XCTest

/// A `migrate.run` batch whose objects ask the client commits what it has
/// migrated each time the server writes to the client (SPEC 9.27): a crash
/// leaves the objects already answered migrated, each one whole, and the rest
/// as they were.
final class MigrateRunBatchTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "larder-migrate-batch-" + UUID().uuidString
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Four objects, one batch of four, a migration that asks the client
    /// for every object. The server asks about u2 only once it has handled
    /// the answer about u1; killed then, u0 and u1 are at version 2 with the
    /// client's values, u2 and u3 at version 1 with theirs.
    func testABatchWaitingForTheClientCommitsEachAnsweredObjectWhole() throws {
        let larder = try LarderProcess(["--store", directory])
        defer {
            larder.kill()
            _ = larder.waitForExit()
        }
        XCTAssertNotNil(larder.request("initialize", params: ["capabilities": ["migrationCallbacks": true]])?["result"])
        XCTAssertNotNil(larder.request("schema.register", params: ["type": "User", "version": "1", "fields": ["name": "string"]])?["result"])
        for i in 0..<4 {
            XCTAssertNotNil(larder.request("object.put", params: ["key": .string("u\(i)"), "type": "User", "value": ["name": .string("n\(i)")]])?["result"])
        }
        XCTAssertNotNil(larder.request("schema.register", params: [
            "type": "User", "version": "2", "fields": ["fullName": "string"],
            "migrations": [["from": "1", "steps": [["op": "callback"]]]],
        ])?["result"])
        XCTAssertTrue(larder.send(json: ["jsonrpc": "2.0", "id": 9, "method": "migrate.run", "params": ["batchSize": 4]]))
        for key in ["u0", "u1"] {
            let question = try XCTUnwrap(larder.readMessage())
            XCTAssertEqual(question["params"]?["key"], .string(key))
            XCTAssertTrue(larder.send(json: ["jsonrpc": "2.0", "id": question["id"] ?? nil, "result": ["value": ["fullName": .string(key.uppercased())]]]))
        }
        XCTAssertEqual(larder.readMessage()?["params"]?["key"], "u2")
        larder.kill()
        XCTAssertEqual(larder.waitForExit(), 128 + SIGKILL)

        let after = try LarderProcess(["--store", directory])
        defer {
            after.kill()
            _ = after.waitForExit()
        }
        let entries = after.request("cache.getMany", params: ["keys": ["u0", "u1", "u2", "u3"]])?["result"]?["entries"]
        let versions = ["u0", "u1", "u2", "u3"].map { entries?[$0]?["version"]?.stringValue ?? "none" }
        XCTAssertEqual(versions, ["2", "2", "1", "1"])
        XCTAssertEqual(entries?["u0"]?["value"], ["fullName": "U0"])
        XCTAssertEqual(entries?["u1"]?["value"], ["fullName": "U1"])
        XCTAssertEqual(entries?["u2"]?["value"], ["name": "n2"])
        XCTAssertEqual(entries?["u3"]?["value"], ["name": "n3"])
    }
}
