import LarderCore
import LarderJSON
import LarderRPC

/// One protocol method: its name, its params and result types, and how it
/// is answered.
///
/// Each method lives in its own file as a type conforming to this protocol,
/// with its `Params` and `Result` beside its handler, and is listed once in
/// `MethodTable.all`. Params are decoded before `handle` runs, refusing
/// members the method does not know (see `ParamsObject`).
protocol MethodDefinition: Sendable {
    associatedtype Params: ParamsObject
    associatedtype Result: MethodResult
    /// The JSON-RPC method name.
    static var method: String { get }
    /// Test-only methods are refused unless the server runs with `--enable-test-methods`.
    static var isTestOnly: Bool { get }
    static func handle(_ params: Params, _ r: Request) throws(ResponseError) -> Response<Result>
}

extension MethodDefinition {
    static var isTestOnly: Bool { false }
    /// Checked against protocol/openrpc.json by a test.
    static var requiredParams: [String] { Params.requiredMembers }
    static var acceptedParams: [String] { Params.members }
}

/// A method's result, encoded by hand (no reflection, no Foundation).
protocol MethodResult {
    var json: JSON { get }
}

/// What a handler produced.
enum Response<Result: MethodResult> {
    /// Send this result now.
    case result(Result)
    /// Send this result once the current transaction has committed (writes).
    case afterCommit(Result)
    /// The handler kept the `Reply` and answers later (with a `Result`'s JSON).
    case deferred
    /// A write the store decides as it runs it (`PendingWrite`): once the
    /// commit has, this result if it went ahead, else why not.
    case afterDecided(PendingWrite, (PendingWrite.Written) -> Result)
}

/// What a write's request is answered with once the commit it joined has
/// run: its result, or — for a write the store decides as it runs it
/// (`PendingWrite`) — the result made from what the write did. Both paths
/// (DirectAnswers.swift) answer from it.
enum WriteAnswer<Result> {
    case result(Result)
    case decided(PendingWrite, (PendingWrite.Written) -> Result)
}

extension Response {
    /// `answer`, after the commit.
    init(afterCommit answer: WriteAnswer<Result>) {
        switch answer {
        case .result(let result): self = .afterCommit(result)
        case .decided(let write, let result): self = .afterDecided(write, result)
        }
    }
}

/// A request as a handler sees it.
struct Request {
    let reply: Reply
    unowned let server: Server
}

/// A result that is a JSON value as it stands (`rpc.discover`'s document, `shutdown`'s null).
struct PlainResult: MethodResult {
    let json: JSON
}
