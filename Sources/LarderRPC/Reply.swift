import LarderJSON

/// The one answer owed to one request.
///
/// The first `succeed` or `fail` is sent; later ones are ignored, so a request
/// that was cancelled while its work was still running is answered only once.
public final class Reply {
    public let id: RequestID
    public let method: String
    private weak var connection: Connection?
    private let batch: Batch?
    public private(set) var isDone = false
    /// Set when the client sent `$/cancelRequest` for this request; long work
    /// checks it between steps.
    public internal(set) var isCancellationRequested = false
    /// Set by a handler that answers a cancellation itself (with partial
    /// results); otherwise a cancelled request is answered with -32800 at once.
    public var onCancel: (() -> Void)?
    /// Set by a handler whose work for the request is done, its answer only
    /// waiting to be released (after a commit): the request is no longer being
    /// worked on, so `$/cancelRequest` passes it by, as a write cannot be
    /// undone, and reaches any other request with its id that still is.
    package var isDecided = false

    init(id: RequestID, method: String, connection: Connection?, batch: Batch?) {
        self.id = id
        self.method = method
        self.connection = connection
        self.batch = batch
    }

    /// A reply for a notification: the method runs, and its answer goes nowhere.
    public static func discarded(method: String) -> Reply {
        Reply(id: .null, method: method, connection: nil, batch: nil)
    }

    /// The connection this request arrived on, for sending server-to-client
    /// requests and notifications while the answer is prepared.
    public var origin: Connection? { connection }

    public func succeed(_ result: JSON) { finish(.success(result)) }
    public func fail(_ error: ResponseError) { finish(.failure(error)) }

    public func finish(_ result: Result<JSON, ResponseError>) {
        guard !isDone else { return }
        isDone = true
        connection?.deliver(self, result: result, batch: batch)
    }
}

/// Collects the responses of one batch, sent as one array when the last arrives.
final class Batch {
    var pending: Int
    var writer = JSONWriter(capacity: 512)
    var count = 0

    init(pending: Int) { self.pending = pending }
}
