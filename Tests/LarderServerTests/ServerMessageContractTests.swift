import Foundation
import LarderJSON
import LarderRPC
import XCTest
@testable import LarderServer

/// What the server sends matches protocol/openrpc.json as closely as what it
/// answers: every request and notification it sends has exactly one
/// definition in `MethodTable` and one entry in `x-server-requests` or
/// `x-notifications`, with the same params (names in order, required or not,
/// JSON types), and a request's answer is read as its result schema says;
/// every such message in a transcript is what its definition writes.
final class ServerMessageContractTests: XCTestCase {
    private func document() throws -> JSON {
        let data = try Data(contentsOf: ProtocolContractTests.protocolDirectory.appendingPathComponent("openrpc.json"))
        return try JSONParser.parse(Array(data))
    }

    /// The documented messages the server sends, by name.
    private func documented(_ list: String) throws -> [String: JSON] {
        var byName: [String: JSON] = [:]
        for message in try document()[list]?.arrayValue ?? [] where message["direction"] == "server-to-client" {
            let name = try XCTUnwrap(message["name"]?.stringValue)
            XCTAssertNil(byName[name], "\(list) documents \(name) twice")
            byName[name] = message
        }
        return byName
    }

    private struct Definition {
        let method: String
        let params: [MessageMember]
        let answer: [MessageMember]?
    }

    private static func definition<R: ServerRequestDefinition>(_ request: R.Type) -> Definition {
        Definition(method: R.method, params: R.Params.members, answer: R.Answer.members)
    }

    private static func definition<N: NotificationDefinition>(_ notification: N.Type) -> Definition {
        Definition(method: N.method, params: N.Params.members, answer: nil)
    }

    private static func definitions(of list: [any ServerRequestDefinition.Type]) -> [Definition] {
        list.map { definition($0) }
    }

    private static func definitions(of list: [any NotificationDefinition.Type]) -> [Definition] {
        list.map { definition($0) }
    }

    private var allDefinitions: [Definition] {
        Self.definitions(of: MethodTable.serverRequests) + Self.definitions(of: MethodTable.notifications)
    }

    func testEveryDocumentedServerRequestHasExactlyOneDefinition() throws {
        let defined = MethodTable.serverRequests.map { $0.method }
        XCTAssertEqual(defined.count, Set(defined).count, "a server request defined twice: \(defined)")
        XCTAssertEqual(Set(defined), Set(try documented("x-server-requests").keys))
    }

    func testEveryDocumentedNotificationTheServerSendsHasExactlyOneDefinition() throws {
        let defined = MethodTable.notifications.map { $0.method }
        XCTAssertEqual(defined.count, Set(defined).count, "a notification defined twice: \(defined)")
        XCTAssertEqual(Set(defined), Set(try documented("x-notifications").keys))
    }

    func testTheMessageListsAreInTheOrderOfTheirNames() {
        // The methods' order is the one `initialize` answers with: by name, with two exceptions kept for clients.
        var methods = MethodTable.all.map { $0.method }
        XCTAssertEqual(methods.firstIndex(of: "cache.getOrFetch"), methods.firstIndex(of: "cache.getMany").map { $0 - 1 })
        XCTAssertEqual(methods.firstIndex(of: "cache.rekey"), methods.firstIndex(of: "cache.purgeExpired").map { $0 - 1 })
        methods.removeAll { $0 == "cache.getOrFetch" || $0 == "cache.rekey" }
        XCTAssertEqual(methods, methods.sorted())
        let requests = MethodTable.serverRequests.map { $0.method }
        XCTAssertEqual(requests, requests.sorted())
        let notifications = MethodTable.notifications.map { $0.method }
        XCTAssertEqual(notifications, notifications.sorted())
    }

    func testEachDefinitionsParamsAreTheDocumentedOnes() throws {
        let document = try document()
        let documented = try documented("x-server-requests").merging(try documented("x-notifications")) { a, _ in a }
        for definition in allDefinitions {
            guard let message = documented[definition.method] else { continue }
            let params = (message["params"]?.arrayValue ?? []).map { param in
                Self.member(param["name"]?.stringValue ?? "?", isRequired: param["required"] == true,
                            types: Self.types(of: param["schema"] ?? true, in: document))
            }
            Self.compare(definition.params, params, "params of \(definition.method)")
        }
    }

    func testEachServerRequestsAnswerIsItsDocumentedResult() throws {
        let document = try document()
        let documented = try documented("x-server-requests")
        for definition in allDefinitions {
            guard let answer = definition.answer, let message = documented[definition.method] else { continue }
            let schema = try XCTUnwrap(Self.resolved(message["result"]?["schema"], in: document), "\(definition.method) has no result schema")
            Self.compare(answer, Self.members(of: schema, in: document), "answer to \(definition.method)")
        }
    }

    /// The transcripts replay byte for byte (`TranscriptReplayTests`): what
    /// they show the server sending is what the definitions write.
    func testEveryMessageTheServerSendsInATranscriptIsWhatItsDefinitionDescribes() throws {
        var byMethod: [String: [MessageMember]] = [:]
        for definition in allDefinitions { byMethod[definition.method] = definition.params }
        var checked = 0
        for transcript in try TranscriptMessage.all(in: ProtocolContractTests.protocolDirectory.appendingPathComponent("transcripts"))
        where !transcript.isResponse && !transcript.isAskedForByDebugAsk {
            let method = transcript.message["method"]?.stringValue ?? "?"
            let members = try XCTUnwrap(byMethod[method], "\(transcript.place): \(method) has no definition")
            let params = try XCTUnwrap(transcript.message["params"]?.objectValue, "\(transcript.place): no params")
            for member in members {
                guard let value = params[member.name] else {
                    XCTAssertFalse(member.isRequired, "\(transcript.place): \(method) without \(member.name)")
                    continue
                }
                XCTAssertTrue(!Self.type(of: value).isDisjoint(with: member.types) || Self.isTranscriptPattern(value),
                              "\(transcript.place): \(method)'s \(member.name) is \(value), not \(member.types)")
            }
            for name in params.members.map(\.key) where !members.contains(where: { $0.name == name }) {
                XCTFail("\(transcript.place): \(method) carries \(name), which its definition does not list")
            }
            checked += 1
        }
        XCTAssertGreaterThan(checked, 15, "the transcripts' messages were found")
    }

    func testAnswersAreReadStrictlyNamingTheMemberMeant() {
        func failure<R: ServerRequestDefinition>(_ r: R.Type, _ answer: JSON) -> String? {
            guard case .failure(let error) = R.answer(.success(answer)) else { return nil }
            return error.message
        }
        XCTAssertEqual(failure(CacheFetch.self, ["valu": 1]),
                       "the client's answer is not {value}, {data} or {found: false}: unknown member result.valu (did you mean value?)")
        XCTAssertEqual(failure(CacheFallback.self, ["data": "AAEC", "tll": 5]),
                       "the client's answer is not {value}, {data} or {found: false}: unknown member result.tll (did you mean ttl?)")
        XCTAssertEqual(failure(MigrateObject.self, ["vaule": ["a": 1]]),
                       "the answer to migrate.object is not {value} or {drop: true}: unknown member result.vaule (did you mean value?)")
        XCTAssertEqual(failure(MigrateObject.self, "x"), #"the answer to migrate.object has neither value nor drop: "x""#)
        XCTAssertEqual(failure(MigrateObject.self, ["drop": false]), #"the answer to migrate.object has neither value nor drop: {"drop":false}"#)
        XCTAssertNil(failure(MigrateObject.self, ["value": ["a": 1]]))
        XCTAssertNil(failure(CacheFetch.self, ["found": false]))
    }

    /// Before answers were read strictly, this migration failed saying the
    /// answer had neither value nor drop.
    func testAMisspeltMemberInAMigrateObjectAnswerFailsTheMigrationNamingTheMemberMeant() throws {
        let output = try serveSession([
            request(1, "initialize", #"{"capabilities":{"migrationCallbacks":true}}"#),
            request(2, "schema.register", #"{"type":"User","version":"1","fields":{"name":"string"}}"#),
            request(3, "object.put", #"{"key":"u1","type":"User","value":{"name":"ada"}}"#),
            request(4, "schema.register", #"{"type":"User","version":"2","fields":{"fullName":"string"},"migrations":[{"from":"1","steps":[{"op":"callback"}]}]}"#),
            request(5, "object.get", #"{"key":"u1"}"#),
            #"{"jsonrpc":"2.0","id":"larder-1","result":{"vaule":{"fullName":"ADA"}}}"#,
        ].joined(separator: "\n") + "\n")
        let messages = try output.split(separator: "\n").map { try JSONParser.parse(Array($0.utf8)) }
        let answer = try XCTUnwrap(messages.first { $0["id"] == 5 })
        XCTAssertEqual(answer["error"]?["code"], -31031, "\(answer)")
        XCTAssertEqual(answer["error"]?["data"]?["reason"],
                       #"{"op":"callback"} (1 → 2): the client's migration failed: the answer to migrate.object is not {value} or {drop: true}: unknown member result.vaule (did you mean value?)"#)
    }

    // MARK: - Reading the document

    private static func compare(_ defined: [MessageMember], _ documented: [MessageMember], _ what: String) {
        XCTAssertEqual(defined.map(\.name), documented.map(\.name), "\(what): members, in order")
        for d in defined {
            guard let doc = documented.first(where: { $0.name == d.name }) else { continue }
            XCTAssertEqual(d.isRequired, doc.isRequired, "\(what): \(d.name) required")
            XCTAssertEqual(d.types, doc.types, "\(what): \(d.name)'s JSON types")
        }
    }

    private static func resolved(_ schema: JSON?, in document: JSON) -> JSON? {
        guard let schema, let ref = schema["$ref"]?.stringValue, ref.hasPrefix("#/") else { return schema }
        var target: JSON? = document
        for part in ref.dropFirst(2).split(separator: "/") { target = target?[String(part)] }
        return resolved(target, in: document)
    }

    /// The JSON types a schema allows: its `type`, its `const`'s or `enum`'s,
    /// the union of its `oneOf`'s; any value for a schema that says none.
    static func types(of schema: JSON, in document: JSON) -> JSONTypes {
        guard let schema = resolved(schema, in: document) else { return .any }
        if let name = schema["type"]?.stringValue { return typeNamed(name) }
        if let names = schema["type"]?.arrayValue { return names.reduce([]) { $0.union(typeNamed($1.stringValue ?? "")) } }
        if let value = schema["const"] { return type(of: value) }
        if let values = schema["enum"]?.arrayValue { return values.reduce([]) { $0.union(type(of: $1)) } }
        if let branches = schema["oneOf"]?.arrayValue { return branches.reduce([]) { $0.union(types(of: $1, in: document)) } }
        return .any
    }

    /// The members of an object schema, or of the objects a `oneOf` allows
    /// (required only when every branch requires it).
    private static func members(of schema: JSON, in document: JSON) -> [MessageMember] {
        let branches = (schema["oneOf"]?.arrayValue ?? [schema]).compactMap { resolved($0, in: document) }
        var members: [MessageMember] = []
        for branch in branches {
            for (name, property) in branch["properties"]?.objectValue?.members ?? [] where !members.contains(where: { $0.name == name }) {
                let required = branches.allSatisfy { $0["required"]?.arrayValue?.contains(.string(name)) == true }
                members.append(member(name, isRequired: required, types: types(of: property, in: document)))
            }
        }
        return members
    }

    private static func member(_ name: String, isRequired: Bool, types: JSONTypes) -> MessageMember {
        isRequired ? .required(name, types) : .optional(name, types)
    }

    private static func typeNamed(_ name: String) -> JSONTypes {
        JSONTypes.names.first { $0.1 == name }?.0 ?? []
    }

    static func type(of value: JSON) -> JSONTypes {
        switch value {
        case .null: return .null
        case .bool: return .boolean
        case .number(let n): return n.int != nil ? [.integer, .number] : .number
        case .string: return .string
        case .array: return .array
        case .object: return .object
        case .fragment(let f): return f.parsed.map(type(of:)) ?? []
        }
    }

    /// A transcript's `{...}` stands for any value (see `JSONPattern`).
    private static func isTranscriptPattern(_ value: JSON) -> Bool {
        value.stringValue == "{...}"
    }
}
