import LarderJSON

/// Every example of protocol/openrpc.json, run against fresh servers.
struct OpenRPCExamples {
    let all: [OpenRPCExample]
    private let testOnlyMethods: Set<String>

    init(document: JSON) throws {
        var all: [OpenRPCExample] = []
        var testOnly: Set<String> = []
        for method in document["methods"]?.arrayValue ?? [] {
            guard let name = method["name"]?.stringValue else { continue }
            if method["x-test-only"]?.boolValue == true { testOnly.insert(name) }
            for example in method["examples"]?.arrayValue ?? [] {
                all.append(try OpenRPCExample(method: name, example: example))
            }
        }
        self.all = all
        testOnlyMethods = testOnly
    }

    func example(of method: String, named name: String) throws(OpenRPCExample.Failure) -> OpenRPCExample {
        let found = all.filter { $0.method == method && $0.name == name }
        guard found.count == 1 else {
            throw OpenRPCExample.Failure(description: "\(found.count) examples of \(method) are named \"\(name)\"; a setup names exactly one")
        }
        return found[0]
    }

    /// Whether the example, or anything its setup runs, calls a test-only method.
    func needsTestMethods(_ example: OpenRPCExample) throws -> Bool {
        if testOnlyMethods.contains(example.method) { return true }
        for step in example.setup {
            if testOnlyMethods.contains(step.method) { return true }
            if case .example(let method, let name) = step, try needsTestMethods(try self.example(of: method, named: name)) {
                return true
            }
        }
        return false
    }

    /// Runs the example's setup and then the example on a fresh server, and
    /// returns the answer to the example's request.
    func answer(to example: OpenRPCExample) throws -> JSON {
        let server = try InProcessServer(enableTestMethods: try needsTestMethods(example))
        defer { server.finish() }
        return try run(example, on: server, replaying: [])
    }

    private func run(_ example: OpenRPCExample, on server: InProcessServer, replaying chain: [String]) throws -> JSON {
        guard !chain.contains(example.title) else {
            throw OpenRPCExample.Failure(description: "setups replay each other in a circle: \((chain + [example.title]).joined(separator: " → "))")
        }
        for (k, step) in example.setup.enumerated() {
            let answer: JSON
            switch step {
            case .request(let method, let params):
                answer = try server.call(method, params: params) { request in
                    throw OpenRPCExample.Failure(description: "\(example.title): setup step \(k + 1) (\(method)) was asked \(request), and setup steps get no client answers")
                }
            case .example(let method, let name):
                answer = try run(try self.example(of: method, named: name), on: server, replaying: chain + [example.title])
            }
            if let error = answer["error"] {
                throw OpenRPCExample.Failure(description: "\(example.title): setup step \(k + 1) (\(step.method)) answered the error \(error)")
            }
        }
        var answers = example.clientAnswers[...]
        let answer = try server.call(example.method, params: example.params) { request throws(OpenRPCExample.Failure) in
            guard let planned = answers.popFirst() else {
                throw OpenRPCExample.Failure(description: "\(example.title): the server asked \(request), and x-client-answers has no answer left")
            }
            if request["method"] != planned["method"] || (planned["params"] != nil && request["params"] != planned["params"]) {
                throw OpenRPCExample.Failure(description: "\(example.title): the server asked \(request), where x-client-answers expects \(planned)")
            }
            var response = JSONObject()
            if let result = planned["result"] { response["result"] = result }
            if let error = planned["error"] { response["error"] = error }
            return response
        }
        if !answers.isEmpty {
            throw OpenRPCExample.Failure(description: "\(example.title): the server never asked for \(answers.count) of x-client-answers")
        }
        return answer
    }
}
