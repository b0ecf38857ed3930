import LarderJSON
import XCTest

/// Arrays of objects through the methods: what `migrate.run` counts, what the
/// client is asked and told, and what a failed element leaves behind.
final class ObjectArrayMethodTests: XCTestCase {
    private var server: InProcessServer!
    /// Every `migrate.object` the server asked, in order.
    private var asked: [JSON] = []

    override func setUpWithError() throws {
        server = try InProcessServer(enableTestMethods: false)
        asked = []
        try call("initialize", #"{"capabilities":{"migrationCallbacks":true}}"#)
        try call("schema.register", #"{"type":"Note","version":"1","fields":{"text":"string","count":"json"}}"#)
    }

    override func tearDown() {
        server.finish()
        server = nil
    }

    /// The answer to a request; `migrate.object` is answered by `migrate`.
    @discardableResult
    private func call(_ method: String, _ params: String, migrate: @escaping (JSON) -> JSON = { _ in ["drop": true] }) throws -> JSON {
        try server.call(method, params: JSONParser.parse(params)) { request in
            self.asked.append(request["params"] ?? .null)
            return ["result": migrate(request["params"] ?? .null)]
        }
    }

    private func result(_ method: String, _ params: String, migrate: @escaping (JSON) -> JSON = { _ in ["drop": true] }) throws -> JSON {
        let answer = try call(method, params, migrate: migrate)
        return try XCTUnwrap(answer["result"], "\(method) answered \(answer)")
    }

    func testMigrateRunCountsTheElementsOfArrays() throws {
        try call("object.put", #"{"key":"list","type":"Note","values":[{"text":"a","count":1},{"text":"b","count":2},{"text":"c","count":3}]}"#)
        try call("object.put", #"{"key":"one","type":"Note","value":{"text":"d","count":4}}"#)
        try call("object.put", #"{"key":"empty","type":"Note","values":[]}"#)
        try call("schema.register", #"{"type":"Note","version":"2","fields":{"body":"string","count":"json"},"migrations":[{"from":"1","steps":[{"op":"rename","from":"text","to":"body"}]}]}"#)
        let counts = try result("migrate.run", #"{}"#)
        XCTAssertEqual(counts, try JSONParser.parse(#"{"examined":4,"migrated":4,"upToDate":0,"failed":0,"dropped":0,"failures":[]}"#))
        let again = try result("migrate.run", #"{}"#)
        XCTAssertEqual(again["upToDate"], 4)
        XCTAssertEqual(again["migrated"], 0)
        XCTAssertEqual(try result("object.get", #"{"key":"empty"}"#)["version"], "2", "an empty array is brought to the newest version too")
    }

    func testAFailingElementFailsTheWholeArrayAndIsNamed() throws {
        try call("object.put", #"{"key":"list","type":"Note","values":[{"text":"a","count":1},{"text":"b","count":"two"}]}"#)
        try call("schema.register", #"{"type":"Note","version":"2","fields":{"text":"string","count":"integer"},"migrations":[{"from":"1","steps":[{"op":"convert","field":"count","to":"integer"}]}]}"#)
        let stored = try result("cache.get", #"{"key":"list"}"#)
        let error = try XCTUnwrap(call("object.get", #"{"key":"list"}"#)["error"])
        XCTAssertEqual(error["code"], -31031)
        XCTAssertEqual(error["data"]?["index"], 1)
        XCTAssertEqual(error["data"]?["key"], "list")
        XCTAssertTrue(error["message"]?.stringValue?.hasPrefix(#"element 1: migrating Note "list" from 1 to 2 failed"#) == true, "\(error)")
        XCTAssertEqual(try result("cache.get", #"{"key":"list"}"#), stored, "nothing was written")

        let counts = try result("migrate.run", #"{"onFailure":"drop"}"#)
        XCTAssertEqual(counts["examined"], 2)
        XCTAssertEqual(counts["failed"], 2, "neither element was migrated")
        XCTAssertEqual(counts["dropped"], 2, "the entry went, with both")
        XCTAssertEqual(counts["failures"]?.arrayValue?.first?["index"], 1)
        XCTAssertEqual(counts["failures"]?.arrayValue?.first?["key"], "list")
        XCTAssertEqual(try result("object.get", #"{"key":"list"}"#), ["found": false])
    }

    func testCallbacksNameTheElementAndADropLeavesTheOthers() throws {
        try call("object.put", #"{"key":"list","type":"Note","values":[{"text":"a","count":1},{"text":"b","count":2}]}"#)
        try call("schema.register", #"{"type":"Note","version":"2","fields":{"text":"string","count":"integer"},"migrations":[{"from":"1","steps":[{"op":"callback"}]}]}"#)
        let read = try result("object.get", #"{"key":"list"}"#) { params in
            params["index"] == 0 ? ["value": ["text": "kept", "count": 10]] : ["drop": true]
        }
        XCTAssertEqual(asked.map { $0["index"] }, [0, 1])
        XCTAssertEqual(asked.map { $0["key"] }, ["list", "list"])
        XCTAssertEqual(read, try JSONParser.parse(
            #"{"found":true,"form":"array","type":"Note","version":"2","values":[{"text":"kept","count":10}],"migratedFrom":"1","droppedElements":[1],"revision":2}"#))
        XCTAssertEqual(try result("object.get", #"{"key":"list"}"#)["values"], [["text": "kept", "count": 10]], "written back")
    }

    func testArraysAndSingleObjectsCompareAndHashApart() throws {
        try call("object.put", #"{"key":"one","type":"Note","value":{"text":"a","count":1}}"#)
        try call("object.put", #"{"key":"list","type":"Note","values":[{"text":"a","count":1}]}"#)
        XCTAssertEqual(try result("object.equals", #"{"a":"one","b":"list"}"#)["equal"], false)
        XCTAssertEqual(try result("object.equals", #"{"a":"list","b":{"type":"Note","values":[{"count":1.0,"text":"a"}]}}"#)["equal"], true)
        XCTAssertNotEqual(try result("object.hash", #"{"key":"one"}"#)["hash"], try result("object.hash", #"{"key":"list"}"#)["hash"])
        XCTAssertEqual(try result("object.hash", #"{"key":"list"}"#)["hash"],
                       try result("object.hash", #"{"type":"Note","values":[{"count":1,"text":"a"}]}"#)["hash"])
        let copied = try result("object.copy", #"{"key":"list","toKey":"copy"}"#)
        XCTAssertEqual(copied, try JSONParser.parse(#"{"copied":true,"type":"Note","version":"1","form":"array","count":1}"#))
        XCTAssertEqual(try result("object.equals", #"{"a":"list","b":"copy"}"#)["equal"], true)
    }

    func testValueAndValuesAreOneOrTheOther() throws {
        let both = try XCTUnwrap(call("object.put", #"{"key":"k","type":"Note","value":{"text":"a","count":1},"values":[]}"#)["error"])
        XCTAssertEqual(both["code"], -32602)
        XCTAssertEqual(both["message"], "Invalid params: params has both value and values; give one")
        let neither = try XCTUnwrap(call("object.put", #"{"key":"k","type":"Note"}"#)["error"])
        XCTAssertEqual(neither["message"], "Invalid params: params needs value (an object) or values (an array of objects)")
        let notArray = try XCTUnwrap(call("object.put", #"{"key":"k","type":"Note","values":{"text":"a"}}"#)["error"])
        XCTAssertEqual(notArray["message"], "Invalid params: type mismatch at params.values: expected array of any JSON value, got object")
        let element = try XCTUnwrap(call("object.describe", #"{"type":"Note","values":[{"text":"a","count":1},{"text":2,"count":1}]}"#)["error"])
        XCTAssertEqual(element["data"], ["path": "values[1].text", "reason": "expected string, got integer"])
        XCTAssertEqual(try result("cache.has", #"{"key":"k"}"#)["found"], false)
    }
}
