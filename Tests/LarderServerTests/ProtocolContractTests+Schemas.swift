import Foundation
import LarderJSON
import XCTest

/// What the server sends matches protocol/openrpc.json's schemas: every result
/// an example documents or a transcript expects matches its method's result
/// schema; every notification and request of the server in a transcript, the
/// params `x-notifications` and `x-server-requests` give it; every error's
/// `data`, the shape `x-error-codes` gives its code. Objects are taken as
/// closed (`JSONSchemaValidator.closedObjects`): a message may carry only
/// members the document describes.
extension ProtocolContractTests {
    /// Each method's result schema, by method name.
    func resultSchemas(in document: JSON) -> [String: JSON] {
        var schemas: [String: JSON] = [:]
        for method in document["methods"]?.arrayValue ?? [] {
            if let name = method["name"]?.stringValue, let schema = method["result"]?["schema"] { schemas[name] = schema }
        }
        return schemas
    }

    /// False for a schema that is only a `$ref` outside the document, such as
    /// rpc.discover's to the OpenRPC meta-schema, which is not bundled here.
    static func isInDocument(_ schema: JSON) -> Bool {
        schema["$ref"]?.stringValue.map { $0.hasPrefix("#") } ?? true
    }

    private func transcriptMessages() throws -> [TranscriptMessage] {
        try TranscriptMessage.all(in: Self.protocolDirectory.appendingPathComponent("transcripts"))
    }

    func testOnlyRPCDiscoverHasAResultSchemaOutsideTheDocument() throws {
        let outside = resultSchemas(in: try openRPC()).filter { !Self.isInDocument($0.value) }.keys
        XCTAssertEqual(outside.sorted(), ["rpc.discover"])
    }

    func testEveryExampleResultMatchesItsMethodsResultSchema() throws {
        let document = try openRPC()
        let validator = JSONSchemaValidator(document: document, closedObjects: true)
        let schemas = resultSchemas(in: document)
        for example in try OpenRPCExamples(document: document).all where !example.resultIsAbridged {
            let schema = try XCTUnwrap(schemas[example.method], "\(example.method) has no result schema")
            for problem in validator.problems(example.result, against: schema) {
                XCTFail("\(example.title): \(problem)")
            }
        }
    }

    func testEveryTranscriptResultMatchesItsMethodsResultSchema() throws {
        let document = try openRPC()
        let validator = JSONSchemaValidator(document: document, closedObjects: true, acceptsTranscriptPatterns: true)
        let schemas = resultSchemas(in: document)
        var checked = 0
        for transcript in try transcriptMessages() where transcript.isResponse {
            guard let result = transcript.message["result"] else { continue }
            guard let method = transcript.requestMethod else {
                XCTFail("\(transcript.place): a result for no request of the transcript")
                continue
            }
            guard let schema = schemas[method] else {
                XCTFail("\(transcript.place): a result of \(method), which openrpc.json does not document")
                continue
            }
            guard Self.isInDocument(schema) else { continue }
            for problem in validator.problems(result, against: schema) {
                XCTFail("\(transcript.place) (\(method)): \(problem)")
            }
            checked += 1
        }
        XCTAssertGreaterThan(checked, 150, "the transcripts' results were found")
    }

    func testEveryTranscriptNotificationAndServerRequestMatchesItsParams() throws {
        let document = try openRPC()
        let validator = JSONSchemaValidator(document: document, closedObjects: true, acceptsTranscriptPatterns: true)
        var schemas: [String: JSON] = [:]
        for message in (document["x-notifications"]?.arrayValue ?? []) + (document["x-server-requests"]?.arrayValue ?? [])
        where message["direction"] == "server-to-client" {
            guard let name = message["name"]?.stringValue else { continue }
            let params = message["params"]?.arrayValue ?? []
            var properties = JSONObject()
            for param in params {
                if let paramName = param["name"]?.stringValue { properties[paramName] = param["schema"] ?? true }
            }
            schemas[name] = [
                "type": "object",
                "required": .array(params.filter { $0["required"] == true }.compactMap { $0["name"] }),
                "properties": .object(properties),
                "additionalProperties": false,
            ]
        }
        var checked = 0
        for transcript in try transcriptMessages() where !transcript.isResponse {
            let method = transcript.message["method"]?.stringValue ?? "\(transcript.message["method"] ?? "nothing")"
            guard let schema = schemas[method] else {
                if !transcript.isAskedForByDebugAsk {
                    XCTFail("\(transcript.place): the server sends \(method), which openrpc.json does not document")
                }
                continue
            }
            for problem in validator.problems(transcript.message["params"] ?? [:], against: schema, at: "params") {
                XCTFail("\(transcript.place) (\(method)): \(problem)")
            }
            checked += 1
        }
        XCTAssertGreaterThan(checked, 15, "the transcripts' notifications were found")
    }

    func testEveryTranscriptErrorHasADocumentedCodeAndData() throws {
        let document = try openRPC()
        let validator = JSONSchemaValidator(document: document, closedObjects: true, acceptsTranscriptPatterns: true)
        var dataSchemas: [String: JSON?] = [:]
        for code in document["x-error-codes"]?.arrayValue ?? [] {
            if let number = code["code"] { dataSchemas.updateValue(code["data"], forKey: number.description) }
        }
        var checked = 0
        for transcript in try transcriptMessages() where transcript.isResponse {
            guard let error = transcript.message["error"] else { continue }
            let code = error["code"]?.description ?? "none"
            guard let dataSchema = dataSchemas[code] else {
                XCTFail("\(transcript.place): error code \(code) is not in x-error-codes")
                continue
            }
            if let data = error["data"] {
                guard let dataSchema else {
                    XCTFail("\(transcript.place): error \(code) carries data, and x-error-codes gives it none")
                    continue
                }
                for problem in validator.problems(data, against: dataSchema, at: "error.data") {
                    XCTFail("\(transcript.place) (error \(code)): \(problem)")
                }
            }
            checked += 1
        }
        XCTAssertGreaterThan(checked, 60, "the transcripts' errors were found")
    }
}
