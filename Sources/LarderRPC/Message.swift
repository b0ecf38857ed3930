import LarderJSON

/// One decoded JSON-RPC message from the other side.
public enum Message {
    case request(id: RequestID, method: String, params: JSON?)
    case notification(method: String, params: JSON?)
    case response(id: RequestID, result: Result<JSON, ResponseError>)

    /// Classifies one JSON value. An invalid message yields the error to send
    /// back and the id to send it under (null when none could be read), or no
    /// error at all when it looked like a notification, which is never answered.
    public static func decode(_ json: JSON) -> Result<Message, InvalidMessage> {
        guard case .object(let o) = json else {
            return .failure(InvalidMessage(id: .null, error: .invalidRequest("a message must be a JSON object")))
        }
        let idMember = o["id"]
        let id = idMember.flatMap(RequestID.init)
        if idMember != nil && id == nil {
            return .failure(InvalidMessage(id: .null, error: .invalidRequest("id must be a string, a number or null")))
        }
        guard o["jsonrpc"]?.stringValue == "2.0" else {
            return .failure(InvalidMessage(id: id ?? .null, error: .invalidRequest("jsonrpc must be \"2.0\"")))
        }
        if let methodMember = o["method"] {
            guard case .string(let method) = methodMember else {
                return .failure(InvalidMessage(id: id ?? .null, error: .invalidRequest("method must be a string")))
            }
            let params = o["params"]
            switch params {
            case nil, .null?, .object?: break
            case .array?:
                return .failure(InvalidMessage(
                    id: id ?? .null,
                    error: .invalidParams("params must be an object: parameters are passed by name"),
                    isNotification: id == nil))
            default:
                return .failure(InvalidMessage(id: id ?? .null, error: .invalidRequest("params must be an object"),
                                               isNotification: id == nil))
            }
            let p: JSON?
            if let params, !params.isNull { p = params } else { p = nil }
            if let id { return .success(.request(id: id, method: method, params: p)) }
            return .success(.notification(method: method, params: p))
        }
        if let id, idMember != nil {
            if let result = o["result"] { return .success(.response(id: id, result: .success(result))) }
            if let e = o["error"] {
                // A malformed error still answers the request it names, so nothing waits forever.
                let error = ResponseError(e) ?? ResponseError(code: .internalError, message: "malformed error object: \(e.description.echoed)")
                return .success(.response(id: id, result: .failure(error)))
            }
        }
        return .failure(InvalidMessage(id: id ?? .null, error: .invalidRequest("a message needs a method, or a result or error")))
    }
}

/// A message that cannot be handled, and how to answer it.
public struct InvalidMessage: Error {
    public var id: RequestID
    public var error: ResponseError
    /// Notifications are never answered, not even with an error.
    public var isNotification = false
}
