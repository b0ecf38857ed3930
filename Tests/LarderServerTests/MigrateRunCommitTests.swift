import LarderJSON
import XCTest
@testable import LarderCore

/// A `migrate.run` batch that waits for the client between its objects is
/// committed in parts, by the flushes made while it waits: a part rolled
/// back fails the run, even when the batch's own commit succeeds.
final class MigrateRunCommitTests: XCTestCase {
    func testABatchPartRolledBackWhileWaitingForTheClientFailsTheRun() throws {
        let server = try InProcessServer(enableTestMethods: false)
        defer { server.finish() }
        func call(_ method: String, _ params: String, answering: (JSON) -> JSONObject = { _ in [:] }) throws -> JSON {
            try server.call(method, params: JSONParser.parse(params), answering: answering)
        }
        XCTAssertNotNil(try call("initialize", #"{"capabilities":{"migrationCallbacks":true}}"#)["result"])
        XCTAssertNotNil(try call("schema.register", #"{"type":"Note","version":"1","fields":{"text":"string"}}"#)["result"])
        for key in ["a", "b"] {
            XCTAssertNotNil(try call("object.put", #"{"key":"\#(key)","type":"Note","value":{"text":"\#(key)"}}"#)["result"])
        }
        XCTAssertNotNil(try call("schema.register", #"""
            {"type":"Note","version":"2","fields":{"text":"string"},"migrations":[{"from":"1","steps":[{"op":"callback"}]}]}
            """#)["result"])

        // Asked for "a", the commit of what came before is made; the one
        // after "a" is written back, made while the server asks for "b",
        // is refused; the batch's own commit, after "b", succeeds.
        var asked: [JSON] = []
        let run = try call("migrate.run", #"{"batchSize":2}"#) { request in
            let key = request["params"]?["key"] ?? .null
            asked.append(key)
            server.store.sqlite!.refuseCommits(key == "a")
            return ["result": ["value": ["text": "migrated"]]]
        }
        XCTAssertEqual(asked, ["a", "b"])
        XCTAssertEqual(run["error"]?["code"], -31001, "\(run)")

        // "a" was rolled back and is migrated again; "b" stays migrated.
        asked = []
        let again = try call("migrate.run", #"{"batchSize":2}"#) { request in
            asked.append(request["params"]?["key"] ?? .null)
            return ["result": ["value": ["text": "migrated"]]]
        }
        XCTAssertEqual(asked, ["a"])
        XCTAssertEqual(again["result"]?["migrated"], 1, "\(again)")
        XCTAssertEqual(again["result"]?["upToDate"], 1, "\(again)")
    }
}
