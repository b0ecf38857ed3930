import LarderJSON
import XCTest

/// Every example in protocol/openrpc.json is run, after its `x-setup`, on a
/// fresh server and must answer its documented result.
extension ProtocolContractTests {
    func testEveryExampleAnswersItsDocumentedResult() throws {
        let document = try openRPC()
        let examples = try OpenRPCExamples(document: document)
        let validator = JSONSchemaValidator(document: document, closedObjects: true)
        let schemas = resultSchemas(in: document)
        XCTAssertGreaterThanOrEqual(examples.all.count, 50, "the examples were found")
        for example in examples.all {
            let answer: JSON
            do {
                answer = try examples.answer(to: example)
            } catch {
                XCTFail("\(error)")
                continue
            }
            if let difference = example.difference(from: answer) {
                XCTFail("\(example.title): \(difference)")
            }
            if let result = answer["result"], let schema = schemas[example.method], Self.isInDocument(schema) {
                for problem in validator.problems(result, against: schema) {
                    XCTFail("\(example.title): the server's result does not match the result schema: \(problem)")
                }
            }
        }
    }

    func testEveryMethodHasAnExample() throws {
        for method in try XCTUnwrap(try openRPC()["methods"]?.arrayValue) {
            XCTAssertFalse(method["examples"]?.arrayValue?.isEmpty ?? true, "\(method["name"] ?? "a method") has no example")
        }
    }

    /// Examples and their setups are requests a client could send: they use
    /// only the params openrpc.json documents for their method.
    func testExamplesSendOnlyDocumentedParams() throws {
        let document = try openRPC()
        var documented: [String: Set<String>] = [:]
        for method in document["methods"]?.arrayValue ?? [] {
            guard let name = method["name"]?.stringValue else { continue }
            documented[name] = Set((method["params"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue })
        }
        func check(_ method: String, _ params: JSON, in title: String) {
            guard let names = documented[method] else { return XCTFail("\(title) calls \(method), which is not documented") }
            let undocumented = Set(params.objectValue?.keys ?? []).subtracting(names)
            XCTAssertEqual(undocumented.sorted(), [], "\(title): params of \(method) that openrpc.json does not document")
        }
        for example in try OpenRPCExamples(document: document).all {
            check(example.method, example.params, in: example.title)
            for case .request(let method, let params) in example.setup {
                check(method, params, in: "\(example.title), x-setup")
            }
        }
    }
}
