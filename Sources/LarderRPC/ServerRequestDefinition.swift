import LarderJSON

/// A request the server sends to the client: its method name, its params,
/// and the answer it expects, read as strictly as the server reads params.
///
/// Like `NotificationDefinition`: one type per request, listed once in the
/// server's message table, sent only through `Connection.send(_:_:onAnswer:)`,
/// and compared with openrpc.json's `x-server-requests` by a contract test.
public protocol ServerRequestDefinition {
    associatedtype Params: OutgoingParams
    associatedtype Answer: AnswerObject
    /// The JSON-RPC method name.
    static var method: String { get }
    /// What an answer that is not an `Answer` counts as, for the work
    /// waiting on it: the same as an error the client answered with.
    static func refusal(_ malformed: MalformedAnswer) -> ResponseError
}

extension ServerRequestDefinition {
    /// The client's answer read as an `Answer`: an object with no member
    /// `Answer` does not know (named with the one most likely meant, as for
    /// params), read by `Answer`'s `init`.
    public static func answer(_ response: Result<JSON, ResponseError>) -> Result<Answer, ResponseError> {
        let answer: JSON
        switch response {
        case .failure(let error): return .failure(error)
        case .success(let json): answer = json
        }
        do throws(MalformedAnswer) {
            guard case .object(let o) = answer else { throw .notAnObject(answer) }
            if let unknown = o.unknownMember(knowing: Answer.members.map(\.name), at: "result") { throw .unknownMember(unknown) }
            return .success(try Answer(o))
        } catch {
            return .failure(refusal(error))
        }
    }
}

/// The result the client answers a server request with: an object of
/// known members, refused whole when it has any other.
public protocol AnswerObject: MessageObject {
    /// Reads the members; unknown ones were already refused.
    init(_ answer: JSONObject) throws(MalformedAnswer)
}

/// Why the client's answer to a server request is not what was asked for.
public enum MalformedAnswer: Error, Sendable {
    /// Not an object at all.
    case notAnObject(JSON)
    /// A member the answer may not have.
    case unknownMember(UnknownMember)
    /// The answer's own reading refused it, saying why.
    case invalid(String)

    /// Why, in a few words: `unknown member result.valu (did you mean value?)`.
    public var reason: String {
        switch self {
        case .notAnObject(let answer): return "expected an object, got \(answer.typeName)"
        case .unknownMember(let unknown): return "unknown member \(unknown.path)" + (unknown.suggestion.map { " (did you mean \($0)?)" } ?? "")
        case .invalid(let why): return why
        }
    }
}
