import LarderJSON

/// One entry of a method's `examples` in protocol/openrpc.json, with the
/// extensions that make it a test (the document's `info.description` explains
/// them): what runs before it, what the client answers meanwhile, and which
/// parts of its result are not compared.
struct OpenRPCExample {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// What `x-setup` runs before the example.
    enum Step {
        /// A request, `{method, params}`.
        case request(method: String, params: JSON)
        /// Another example replayed, its own setup first: `{method, example}`.
        case example(method: String, name: String)

        var method: String {
            switch self {
            case .request(let method, _), .example(let method, _): return method
            }
        }
    }

    let method: String
    let name: String
    /// By name, as sent.
    let params: JSON
    let setup: [Step]
    /// `x-client-answers`: `{method, params?, result | error}` each.
    let clientAnswers: [JSON]
    let result: JSON
    /// `x-result-varies`: JSON Pointers into the result.
    let resultVaries: [String]
    /// `x-result-abridged`.
    let resultIsAbridged: Bool

    var title: String { "\(method) example \"\(name)\"" }

    init(method: String, example: JSON) throws(Failure) {
        self.method = method
        guard let name = example["name"]?.stringValue else { throw Failure(description: "an example of \(method) has no name") }
        self.name = name
        let title = "\(method) example \"\(name)\""
        var params = JSONObject()
        for param in example["params"]?.arrayValue ?? [] {
            guard let paramName = param["name"]?.stringValue, let value = param["value"] else {
                throw Failure(description: "\(title): a param without name or value: \(param)")
            }
            params[paramName] = value
        }
        self.params = .object(params)
        setup = try (example["x-setup"]?.arrayValue ?? []).map { step throws(Failure) in
            guard let method = step["method"]?.stringValue else { throw Failure(description: "\(title): a setup step without method: \(step)") }
            if let other = step["example"]?.stringValue { return .example(method: method, name: other) }
            return .request(method: method, params: step["params"] ?? .object(JSONObject()))
        }
        clientAnswers = example["x-client-answers"]?.arrayValue ?? []
        guard let result = example["result"]?["value"] else { throw Failure(description: "\(title) has no result value") }
        self.result = result
        resultVaries = example["x-result-varies"]?.arrayValue?.compactMap(\.stringValue) ?? []
        resultIsAbridged = example["x-result-abridged"]?.boolValue ?? false
    }

    /// Where the answer's result differs from the documented one, nil if nowhere.
    func difference(from answer: JSON) -> String? {
        guard var actual = answer["result"] else { return "answered \(answer) instead of a result" }
        var expected = result
        for pointer in resultVaries {
            guard expected[pointer: pointer] != nil else { return "x-result-varies names \(pointer), which the example's result lacks" }
            guard actual[pointer: pointer] != nil else { return "the result lacks \(pointer) (named by x-result-varies)" }
            expected = expected.removing(pointer: pointer)
            actual = actual.removing(pointer: pointer)
        }
        return expected.firstDifference(from: actual, abridged: resultIsAbridged)
    }
}
