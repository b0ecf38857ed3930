import LarderJSON

/// What a `Connection` hands decoded messages to. It never sees bytes.
///
/// Everything runs on the connection's one thread, in arrival order, so a
/// handler needs no locks; work that must wait (for the client, for a commit)
/// keeps its `Reply` and answers later while other messages are served.
package protocol MessageHandler: AnyObject {
    /// A request. Call `reply` exactly once, now or later.
    func handle(request method: String, params: JSON?, reply: Reply)
    /// Methods whose plain requests are offered to `answer(directly:into:)`;
    /// read once, when the handler is given to its connection.
    var directMethods: [StaticString] { get }
    /// A plain request for one of `directMethods`, before anything is decoded:
    /// answer it straight from its bytes, or decline and it is parsed and
    /// passed to `handle(request:)`. A handler that declines must not have
    /// changed anything.
    func answer(directly request: RequestView, into result: inout JSONWriter) -> DirectAnswer
    /// A message that could not be handled (unparseable, not JSON-RPC): answer
    /// it through `reply` with `error`, in turn with other answers.
    func handle(invalidMessage error: ResponseError, reply: Reply)
    /// A notification; there is no reply.
    func handle(notification method: String, params: JSON?)
    /// True while answers are held for work that costs more the more often
    /// it is done (a commit): output is then flushed only once the input is
    /// drained.
    var isHolding: Bool { get }
    /// Output is about to leave the process: anything a response sent so far
    /// depends on must be made durable now (this is where writes commit).
    func willFlush()
    /// The input has ended or the connection was stopped; nothing more arrives.
    func connectionClosed()
}

/// What became of a request offered to `answer(directly:into:)`.
package enum DirectAnswer {
    /// Not handled here: parse it and handle it the ordinary way.
    case declined
    /// Answered: the result's JSON text is in the writer, to be sent now.
    case answered
    /// Taken by the handler, which answers through `Connection.respond`, now
    /// or once earlier answers have left.
    case later
}

extension MessageHandler {
    package var isHolding: Bool { false }
    package var directMethods: [StaticString] { [] }

    package func answer(directly request: RequestView, into result: inout JSONWriter) -> DirectAnswer {
        .declined
    }

    package func handle(invalidMessage error: ResponseError, reply: Reply) {
        reply.fail(error)
    }
}
