import LarderJSON
import LarderRPC
import XCTest
@testable import LarderServer

/// Every method refuses members it does not know, naming the path, the
/// members it knows and the one most likely meant; unknown methods too.
final class StrictParamsTests: XCTestCase {
    private func answers(_ lines: [String]) throws -> [JSON] {
        try serveSession(lines.joined(separator: "\n") + "\n", enableTestMethods: true)
            .split(separator: "\n").map { try JSONParser.parse(Array($0.utf8)) }
    }

    /// One answer per request; `initialize`, accepted only first, gets a session of its own each time.
    private func answersEach(_ lines: [(method: String, line: String)]) throws -> [JSON] {
        let others = try answers(lines.filter { $0.method != "initialize" }.map(\.line))
        var next = others.makeIterator()
        return try lines.map { l in try l.method == "initialize" ? answers([l.line])[0] : next.next()! }
    }

    func testEveryMethodRefusesAMemberItDoesNotKnow() throws {
        let methods = MethodTable.all
        let replies = try answersEach(methods.enumerated().map { k, m in (m.method, request(k, m.method, #"{"zzzUnknown":1}"#)) })
        XCTAssertEqual(replies.count, methods.count)
        for (k, m) in methods.enumerated() {
            let error = replies[k]["error"]
            XCTAssertEqual(error?["code"], -32602, "\(m.method): \(replies[k])")
            XCTAssertEqual(error?["message"], "Invalid params: unknown member params.zzzUnknown", m.method)
            XCTAssertEqual(error?["data"]?["path"], "params.zzzUnknown", m.method)
            XCTAssertEqual(error?["data"]?["expected"], .array(m.acceptedParams.map(JSON.string)), m.method)
            XCTAssertNil(error?["data"]?["suggestion"], m.method)
        }
    }

    func testEveryMethodSuggestsTheMemberAMisspellingMeant() throws {
        // Each known member with its last letter doubled: one edit away.
        var cases: [(method: String, meant: String)] = []
        for m in MethodTable.all { for member in m.acceptedParams { cases.append((m.method, member)) } }
        XCTAssertGreaterThan(cases.count, 100)
        let replies = try answersEach(cases.enumerated().map { k, c in
            (c.method, request(k, c.method, #"{"\#(c.meant + String(c.meant.last!))":1}"#))
        })
        for (k, c) in cases.enumerated() {
            let typo = c.meant + String(c.meant.last!)
            XCTAssertEqual(replies[k]["error"]?["message"]?.stringValue,
                           "Invalid params: unknown member params.\(typo) (did you mean \(c.meant)?)", "\(c.method): \(replies[k])")
            XCTAssertEqual(replies[k]["error"]?["data"]?["suggestion"], .string(c.meant), c.method)
        }
    }

    func testTyposFromTheIssueFailLoudly() throws {
        let replies = try answers([
            request(1, "cache.set", #"{"key":"k","value":1,"tll":5}"#),
            request(2, "cache.get", #"{"cahce":"c","key":"k"}"#),
            request(3, "cache.open", #"{"cache":"c","memory":{"max_count":5}}"#),
            request(4, "cache.setMany", #"{"entries":[{"key":"a","value":1},{"key":"b","value":2},{"key":"c","value":3},{"key":"d","value":4,"tll":1}]}"#),
            request(5, "cache.get", #"{"key":"k"}"#),
            request(6, "cache.keys", #"{}"#),
        ])
        XCTAssertEqual(replies[0]["error"]?["data"], ["path": "params.tll", "expected": ["cache", "group", "key", "value", "data", "ttl", "ifRevision", "ifAbsent"],
                                                 "suggestion": "ttl"])
        XCTAssertEqual(replies[1]["error"]?["message"], "Invalid params: unknown member params.cahce (did you mean cache?)")
        XCTAssertEqual(replies[2]["error"]?["message"], "Invalid params: unknown member params.memory.max_count (did you mean maxCount?)")
        XCTAssertEqual(replies[3]["error"]?["message"], "Invalid params: unknown member params.entries[3].tll (did you mean ttl?)")
        // Nothing was written by any of them.
        XCTAssertEqual(replies[4]["result"], ["found": false])
        XCTAssertEqual(replies[5]["result"], ["keys": []])
    }

    func testDefinitionsNestedInParamsNameTheFullPath() throws {
        let replies = try answers([
            request(1, "schema.register", #"{"type":"T","version":"1","fields":{"a":{"type":"string","defualt":"x"}}}"#),
            request(2, "schema.register", #"{"type":"T","version":"2","fields":{"a":"string"},"migrations":[{"from":"1","steps":[{"op":"rename","from":"a","too":"b"}]}]}"#),
            request(3, "entity.define", #"{"model":"M","entities":[{"name":"A","atributes":{"id":"string"}}]}"#),
            request(4, "entity.define", #"{"model":"M","entities":[{"name":"A","attributes":{"id":"string"}}],"casin":"snake_case"}"#),
        ])
        XCTAssertEqual(replies[0]["error"]?["message"], "Invalid params: unknown member params.fields.a.defualt (did you mean default?)")
        XCTAssertEqual(replies[1]["error"]?["message"], "Invalid params: unknown member params.migrations[0].steps[0].too (did you mean to?)")
        XCTAssertEqual(replies[2]["error"]?["message"], "Invalid params: unknown member params.entities[0].atributes (did you mean attributes?)")
        XCTAssertEqual(replies[3]["error"]?["message"], "Invalid params: unknown member params.casin (did you mean casing?)")
    }

    func testUnknownMethodsSuggestTheMethodMeant() throws {
        let replies = try answers([
            request(1, "cache.gett", "{}"), request(2, "cahce.get", "{}"), request(3, "cache.nope", "{}"), request(4, "entity.querry", "{}"),
        ])
        XCTAssertEqual(replies[0]["error"]?["message"], "Method not found: cache.gett (did you mean cache.get?)")
        XCTAssertEqual(replies[0]["error"]?["data"], ["method": "cache.gett", "suggestion": "cache.get"])
        XCTAssertEqual(replies[1]["error"]?["message"], "Method not found: cahce.get (did you mean cache.get?)")
        XCTAssertEqual(replies[2]["error"]?["message"], "Method not found: cache.nope", "no guess when nothing is close")
        XCTAssertNil(replies[2]["error"]?["data"])
        XCTAssertEqual(replies[3]["error"]?["message"], "Method not found: entity.querry (did you mean entity.query?)")
    }

    func testStockLSPInitializeParamsAreAccepted() throws {
        // What an editor's LSP client sends, capabilities and all.
        let lsp = #"""
        {"processId":4242,"clientInfo":{"name":"Visual Studio Code","version":"1.95.0"},"locale":"en","rootPath":null,"rootUri":null,\#
        "initializationOptions":{"anything":[1,2,3]},"capabilities":{"workspace":{"applyEdit":true},"textDocument":{"hover":{}},\#
        "window":{"workDoneProgress":true},"general":{"positionEncodings":["utf-16"]},"migrationCallbacks":true},\#
        "trace":"off","workspaceFolders":null,"workDoneToken":"init-1"}
        """#
        let replies = try answers([request(1, "initialize", lsp)])
        XCTAssertEqual(replies[0]["result"]?["protocolVersion"], .string(Version.protocolVersion), "\(replies[0])")
    }

    func testInitializeRefusesMembersOutsideCapabilities() throws {
        // A refused initialize may be sent again, so one session takes all three.
        let replies = try answers([
            request(1, "initialize", #"{"clientInfo":{"name":"x","versoin":"1"}}"#),
            request(2, "initialize", #"{"stor":{"path":"/tmp/x"}}"#),
            request(3, "initialize", #"{"capabilities":{"events":"yes"}}"#),
        ])
        XCTAssertEqual(replies[0]["error"]?["message"], "Invalid params: unknown member params.clientInfo.versoin (did you mean version?)")
        XCTAssertEqual(replies[1]["error"]?["message"], "Invalid params: unknown member params.stor (did you mean store?)")
        XCTAssertEqual(replies[2]["error"]?["code"], -32602, "known capabilities are still typed")
    }

    func testUnknownDollarNotificationsAreIgnoredAndTheSessionGoesOn() throws {
        let replies = try answers([
            #"{"jsonrpc":"2.0","method":"$/setTrace","params":{"value":"verbose"}}"#,
            #"{"jsonrpc":"2.0","method":"$/somethingNew"}"#,
            #"{"jsonrpc":"2.0","method":"cache.set","params":{"key":"k","value":1,"tll":5}}"#,
            request(1, "cache.get", #"{"key":"k"}"#),
        ])
        XCTAssertEqual(replies.count, 1, "notifications are never answered: \(replies)")
        XCTAssertEqual(replies[0]["result"], ["found": false], "a refused notification wrote nothing")
    }

    func testTheOpenRPCDocumentListsExactlyTheMembersEachParamsTypeAccepts() throws {
        let data = try Data(contentsOf: ProtocolContractTests.protocolDirectory.appendingPathComponent("openrpc.json"))
        let methods = try XCTUnwrap(try JSONParser.parse(Array(data))["methods"]?.arrayValue)
        for m in MethodTable.all {
            guard let documented = methods.first(where: { $0["name"]?.stringValue == m.method }) else { continue }
            let params = documented["params"]?.arrayValue ?? []
            XCTAssertEqual(params.compactMap { $0["name"]?.stringValue }, m.acceptedParams, "params of \(m.method), in order")
            let optional = params.filter { $0["required"]?.boolValue != true }.compactMap { $0["name"]?.stringValue }
            XCTAssertEqual(Set(optional), Set(m.acceptedParams).subtracting(m.requiredParams), "optional params of \(m.method)")
        }
    }

    func testEachRequiredMemberIsRequired() throws {
        // Leaving out a required member fails naming it, whatever else is given.
        var cases: [(method: String, missing: String)] = []
        for m in MethodTable.all { for r in m.requiredParams { cases.append((m.method, r)) } }
        let replies = try answersEach(cases.enumerated().map { k, c in (c.method, request(k, c.method, "{}")) })
        for (k, c) in cases.enumerated() {
            let message = replies[k]["error"]?["message"]?.stringValue ?? ""
            XCTAssertTrue(message.contains("params."), "\(c.method) without \(c.missing): \(replies[k])")
            XCTAssertEqual(replies[k]["error"]?["code"], -32602, "\(c.method) without \(c.missing)")
        }
    }
}
