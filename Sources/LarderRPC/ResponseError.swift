import LarderJSON

/// The `error` member of a response.
public struct ResponseError: Error, Sendable, Equatable {
    public var code: ErrorCode
    public var message: String
    public var data: JSON?

    public init(code: ErrorCode, message: String, data: JSON? = nil) {
        self.code = code
        self.message = message
        self.data = data
    }

    public var json: JSON {
        var o = JSONObject()
        o.append("code", .int(code.rawValue))
        o.append("message", .string(message))
        if let data { o.append("data", data) }
        return .object(o)
    }

    /// Reads an error object sent by the other side.
    public init?(_ json: JSON) {
        guard let code = json["code"]?.numberValue?.int, let message = json["message"]?.stringValue else { return nil }
        self.init(code: ErrorCode(rawValue: code), message: message, data: json["data"])
    }
}

extension ResponseError {
    public static func parseError(_ message: String) -> ResponseError {
        ResponseError(code: .parseError, message: "Parse error: \(message)")
    }
    public static func invalidRequest(_ message: String, data: JSON? = nil) -> ResponseError {
        ResponseError(code: .invalidRequest, message: "Invalid Request: \(message)", data: data)
    }
    /// An unknown method, with the known one it most likely meant.
    public static func methodNotFound(_ method: String, known: [String] = []) -> ResponseError {
        let shown = method.echoed
        guard let meant = NearestName.suggestion(for: method, among: known) else {
            return ResponseError(code: .methodNotFound, message: "Method not found: \(shown)")
        }
        return ResponseError(code: .methodNotFound, message: "Method not found: \(shown) (did you mean \(meant)?)",
                             data: ["method": .string(shown), "suggestion": .string(meant)])
    }
    public static func invalidParams(_ message: String) -> ResponseError {
        ResponseError(code: .invalidParams, message: "Invalid params: \(message)")
    }
    /// A member the params may not have: -32602 naming its path, the members
    /// that are known there and the nearest of them:
    /// `Invalid params: unknown member params.tll (did you mean ttl?)`.
    public static func unknownMember(_ unknown: UnknownMember) -> ResponseError {
        let path = unknown.path.echoed
        var data: JSONObject = ["path": .string(path), "expected": .array(unknown.expected.map(JSON.string))]
        var message = "Invalid params: unknown member \(path)"
        if let meant = unknown.suggestion {
            data.append("suggestion", .string(meant))
            message += " (did you mean \(meant)?)"
        }
        return ResponseError(code: .invalidParams, message: message, data: .object(data))
    }
    public static func internalError(_ message: String) -> ResponseError {
        ResponseError(code: .internalError, message: "Internal error: \(message)")
    }
    public static func requestCancelled(data: JSON? = nil) -> ResponseError {
        ResponseError(code: .requestCancelled, message: "Request cancelled", data: data)
    }
    public static func requestFailed(_ message: String, data: JSON? = nil) -> ResponseError {
        ResponseError(code: .requestFailed, message: message, data: data)
    }
}
