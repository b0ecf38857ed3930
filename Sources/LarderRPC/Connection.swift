#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LarderJSON

/// One JSON-RPC 2.0 peer, served on an `EventLoop`.
///
/// Frames and decodes the messages its loop reads, hands them to the
/// `MessageHandler` in arrival order (plain requests for the handler's
/// `directMethods` first as they lie, see `RequestView`), answers batches
/// as one array and `$/cancelRequest` by id, and frames responses into one
/// buffer that the loop flushes when the input is drained (or the buffer
/// grows large), so a pipelined burst costs one `write(2)` instead of one
/// per message. Tracks the requests it sends to the client and routes the
/// answers back. Single-threaded by design: the handler never needs a lock.
public final class Connection {
    public enum Direction: Sendable { case incoming, outgoing }

    /// The loop this connection is served on: its timers and scheduled work
    /// are the handler's too.
    public let loop: EventLoop
    let decoder: FrameDecoder
    private let maxDepth: Int
    /// Held strongly (a handler refers back to its connection `unowned`).
    /// Not weak: a weakly referenced object keeps its reference counts in a
    /// side table, and every retain of the handler, several per request,
    /// then takes the runtime's slow path.
    package var handler: MessageHandler? {
        didSet {
            requests.deallocate()
            requests = RequestReader.allocate(methods: handler?.directMethods ?? [])
        }
    }
    /// Reads the requests the handler answers directly.
    private var requests = RequestReader.allocate(methods: [])

    /// A message or answer of this size or more leaves buffers grown that
    /// the loop's next quiet moment gives back; an answer this large is
    /// written from where it lies (`sendLarge`).
    public var largeMessageBytes = 256 << 10

    /// Called with every message body in both directions (for `--record`).
    public var onTraffic: ((Direction, UnsafeBufferPointer<UInt8>) -> Void)?

    private var out = JSONWriter(capacity: 256 * 1024)
    private var scratch = JSONWriter(capacity: 1024)
    /// Results of requests answered straight from their bytes.
    private var direct = JSONWriter(capacity: 16 * 1024)
    static let flushThreshold = 1 << 20

    /// Requests being worked on, by id, so `$/cancelRequest` can reach them.
    private var working: [RequestID: Reply] = [:]
    /// Requests sent to the client and not yet answered, each with its place in the sending order.
    private var awaiting: [RequestID: (sent: Int, onResponse: (Result<JSON, ResponseError>) -> Void)] = [:]
    private var nextOutgoingID = 0
    /// Requests to the client given up on (`abandon`): a late answer to one is expected, not a mistake.
    private var abandoned: Set<RequestID> = []
    /// A message being gathered line by line (see `SplitMessage`).
    private var split: SplitMessage? {
        didSet { gathering = split != nil }
    }
    /// `split != nil`, kept apart: testing a Bool costs every message two
    /// instructions, testing the optional struct about eighteen (callgrind).
    private var gathering = false

    deinit { requests.deallocate() }

    public init(loop: EventLoop, maxMessageBytes: Int, maxDepth: Int = JSONParser.defaultMaxDepth, framing: Framing? = nil) {
        self.loop = loop
        self.decoder = FrameDecoder(maxMessageBytes: maxMessageBytes, framing: framing)
        self.maxDepth = maxDepth
    }

    /// A connection served over a pair of descriptors (`run()`).
    public convenience init(input: Int32, output: Int32, maxMessageBytes: Int, maxDepth: Int = JSONParser.defaultMaxDepth,
                            framing: Framing? = nil) {
        self.init(loop: EventLoop(input: input, output: output), maxMessageBytes: maxMessageBytes, maxDepth: maxDepth,
                  framing: framing)
    }

    /// The framing in use: detected from the first bytes, lines until then.
    public var framing: Framing { decoder.framing ?? .lines }

    /// Serves until the input ends or the loop is stopped; returns the exit code.
    public func run() -> Int32 {
        loop.run(self)
    }

    /// Buffers that grew for one large message go back to their first size.
    func shrinkBuffers() {
        decoder.shrink()
        if out.capacity > 2 * Self.flushThreshold { out = JSONWriter(capacity: 256 * 1024) }
        if direct.capacity > 1 << 20 { direct = JSONWriter(capacity: 16 * 1024) }
        if scratch.capacity > 1 << 20 { scratch = JSONWriter(capacity: 1024) }
    }

    /// Bytes waiting in the output buffer.
    var outputCount: Int { out.count }

    /// Whether the handler holds answers for costly work (a commit): the
    /// loop then flushes only once the input is drained.
    var isHolding: Bool { handler?.isHolding ?? false }

    // MARK: - Incoming

    /// Handles every message the loop has read, in order.
    func handleInput() {
        while !loop.stopped, let event = decoder.next() { handle(event) }
    }

    /// The input ended: a last message without its line end is handled, and
    /// a message being gathered over lines is answered.
    func handleEndOfInput() {
        if let last = decoder.endOfInput() { handle(last) }
        if let unfinished = split { answer(unfinished) }
    }

    private func handle(_ event: FrameDecoder.Event) {
        switch event {
        case .message(let range):
            let body = decoder.bytes(range)
            onTraffic?(.incoming, body)
            handle(body: body)
            if range.count >= largeMessageBytes {
                loop.wantQuiet()
                // Its bytes are no longer needed: they go before the
                // messages read with them are answered, a get of the value
                // just set among them.
                decoder.releaseConsumed()
            }
        case .oversized(let size):
            loop.wantQuiet()
            Log.warn("skipped a message of \(size) bytes (limit \(decoder.maxMessageBytes))")
            reject(.invalidRequest(
                "message of \(size) bytes exceeds the limit of \(decoder.maxMessageBytes) bytes",
                data: ["size": .int(size), "limit": .int(decoder.maxMessageBytes)]), id: .null, batch: nil)
        case .badFrame(let why):
            reject(.parseError(why), id: .null, batch: nil)
        }
    }

    private func handle(body: UnsafeBufferPointer<UInt8>) {
        if gathering && gather(body) { return }
        if let handler, let request = requests.read(body) {
            direct.reset()
            switch handler.answer(directly: request, into: &direct) {
            case .declined: break
            case .answered:
                emitDirect(request)
                return
            case .later:
                return
            }
        }
        let json: JSON
        do {
            json = try JSONParser.parse(body, maxDepth: maxDepth)
        } catch {
            if framing == .lines && error.reason == .unexpectedEnd, let start = SplitMessage(startingWith: body) {
                split = start
                splitError = error
                return
            }
            // A wrong Content-Length may have swallowed the next message's start.
            decoder.lastBodyIsNotJSON()
            reject(.parseError(error.description), id: .null, batch: nil)
            return
        }
        guard case .array(let items) = json else {
            handle(message: json, batch: nil)
            return
        }
        guard !items.isEmpty else {
            reject(.invalidRequest("an empty batch"), id: .null, batch: nil)
            return
        }
        let batch = Batch(pending: items.count)
        for item in items { handle(message: item, batch: batch) }
    }

    private func handle(message json: JSON, batch: Batch?) {
        switch Message.decode(json) {
        case .failure(let invalid):
            if invalid.isNotification { noAnswer(in: batch) } else { reject(invalid.error, id: invalid.id, batch: batch) }
        case .success(.request(let id, let method, let params)):
            let reply = Reply(id: id, method: method, connection: self, batch: batch)
            handler?.handle(request: method, params: params, reply: reply)
            if !reply.isDone && !reply.isDecided { working[id] = reply }
        case .success(.notification(let method, let params)):
            if method == "$/cancelRequest" { cancel(params) } else { handler?.handle(notification: method, params: params) }
            noAnswer(in: batch)
        case .success(.response(let id, let result)):
            if let waiting = awaiting.removeValue(forKey: id) {
                waiting.onResponse(result)
            } else if abandoned.remove(id) != nil {
                Log.debug("a late response to request \(id), given up on, was ignored")
            } else {
                Log.warn("a response for unknown request id \(id) was ignored")
            }
            noAnswer(in: batch)
        }
    }

    /// The parse error of a split message's first line, answered as it is if
    /// no other line follows.
    private var splitError: JSONParseError?

    /// Adds a line to the split message; false when the line cannot be part
    /// of it, which the split message is then answered before.
    private func gather(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        guard var gathering = split else { return false }
        // Not kept in `split` while it grows, so that appending does not copy the text.
        split = nil
        let progress = gathering.append(line)
        if progress == .notPart {
            answer(gathering)
            return false
        }
        if !gathering.isOversized && gathering.size > decoder.maxMessageBytes {
            // Answered now, and the rest skipped through the message's end without being kept.
            reject(.invalidRequest("a message spread over lines exceeds the limit of \(decoder.maxMessageBytes) bytes"), id: .null, batch: nil)
            gathering.forgetText()
        }
        if progress == .ended { answer(gathering) } else { split = gathering }
        return true
    }

    /// Answers a split message, and forgets it.
    private func answer(_ gathered: SplitMessage) {
        split = nil
        if gathered.isOversized { return }
        if gathered.lines == 1, let first = splitError {
            // Nothing followed: a line cut short, not a message spread over lines.
            reject(.parseError(first.description), id: .null, batch: nil)
            return
        }
        let (error, id) = gathered.error
        reject(error, id: id, batch: nil)
    }

    /// Answers a message that cannot be handled, through the handler so that
    /// it keeps its place among the other answers.
    private func reject(_ error: ResponseError, id: RequestID, batch: Batch?) {
        let reply = Reply(id: id, method: "", connection: self, batch: batch)
        if let handler { handler.handle(invalidMessage: error, reply: reply) } else { reply.fail(error) }
    }

    /// `$/cancelRequest`: a request still being worked on is told, and answered
    /// with -32800 unless its handler answers itself (with partial results).
    private func cancel(_ params: JSON?) {
        guard let idJSON = params?["id"], let id = RequestID(idJSON), let reply = working[id], !reply.isDecided else { return }
        reply.isCancellationRequested = true
        if let onCancel = reply.onCancel { onCancel() } else { reply.fail(.requestCancelled()) }
    }

    // MARK: - Outgoing

    /// Called by `Reply`: sends a response, or adds it to its batch.
    func deliver(_ reply: Reply, result: Result<JSON, ResponseError>, batch: Batch?) {
        if working[reply.id] === reply { working[reply.id] = nil }
        send(id: reply.id, result: result, batch: batch)
    }

    /// Answers a request that was answered `.later` by its handler.
    public func respond(to id: RequestID, with result: Result<JSON, ResponseError>) {
        send(id: id, result: result, batch: nil)
    }

    /// Answers a request that was answered `.later`, its result given as JSON text.
    public func respond(to id: RequestID, withResultJSON result: UnsafeBufferPointer<UInt8>) {
        if result.count >= largeMessageBytes && onTraffic == nil {
            return sendLarge(result) { w in Self.beginResponse(id: id, member: ",\"result\":", into: &w) }
        }
        emit { w in
            Self.beginResponse(id: id, member: ",\"result\":", into: &w)
            w.writeRaw(result)
            w.writeASCII("}")
        }
    }

    private func send(id: RequestID, result: Result<JSON, ResponseError>, batch: Batch?) {
        guard let batch else {
            emit { w in Self.encodeResponse(id: id, result: result, into: &w) }
            return
        }
        batch.writer.writeASCII(batch.count == 0 ? "[" : ",")
        Self.encodeResponse(id: id, result: result, into: &batch.writer)
        batch.count += 1
        noAnswer(in: batch)
    }

    /// One batch member is settled; the batch goes out when all are.
    private func noAnswer(in batch: Batch?) {
        guard let batch else { return }
        batch.pending -= 1
        guard batch.pending == 0, batch.count > 0 else { return }
        batch.writer.writeASCII("]")
        emit { w in batch.writer.withBytes { w.writeRaw($0) } }
    }

    private static func encodeResponse(id: RequestID, result: Result<JSON, ResponseError>, into w: inout JSONWriter) {
        switch result {
        case .success(let value):
            beginResponse(id: id, member: ",\"result\":", into: &w)
            w.write(value)
        case .failure(let error):
            beginResponse(id: id, member: ",\"error\":", into: &w)
            w.write(error.json)
        }
        w.writeASCII("}")
    }

    /// A response up to its result or error member's value.
    private static func beginResponse(id: RequestID, member: StaticString, into w: inout JSONWriter) {
        w.writeASCII("{\"jsonrpc\":\"2.0\",\"id\":")
        w.write(id.json)
        w.writeASCII(member)
    }

    /// Sends a notification to the client.
    public func send<N: NotificationDefinition>(_ notification: N.Type, _ params: N.Params) {
        emit { w in
            w.writeASCII("{\"jsonrpc\":\"2.0\",\"method\":")
            w.writeString(N.method)
            w.writeASCII(",\"params\":")
            params.write(into: &w)
            w.writeASCII("}")
        }
    }

    /// Sends a request to the client; `onAnswer` runs when its answer arrives,
    /// read as `R.Answer` (a malformed one fails as `R.refusal` says), or
    /// with an error if the client goes away first.
    @discardableResult
    public func send<R: ServerRequestDefinition>(_ request: R.Type, _ params: R.Params,
                                                 onAnswer: @escaping (Result<R.Answer, ResponseError>) -> Void) -> RequestID {
        send(R.method, params: { params.write(into: &$0) }) { onAnswer(R.answer($0)) }
    }

    /// Sends a request of any method with any params, and hands back the
    /// answer as it came: for `debug.ask`, which asks what a test names.
    /// Everything else the server asks goes through a `ServerRequestDefinition`.
    @discardableResult
    public func request(_ method: String, params: JSON?, onResponse: @escaping (Result<JSON, ResponseError>) -> Void) -> RequestID {
        send(method, params: params.map { params in { $0.write(params) } }, onResponse: onResponse)
    }

    /// Ids are strings with a `larder-` prefix so they never collide with the client's own.
    private func send(_ method: String, params: ((inout JSONWriter) -> Void)?,
                      onResponse: @escaping (Result<JSON, ResponseError>) -> Void) -> RequestID {
        nextOutgoingID += 1
        let id = RequestID.string("larder-\(nextOutgoingID)")
        guard !loop.clientGone && !loop.inputEnded else {
            onResponse(.failure(ResponseError(code: .requestCancelled, message: "the client closed the connection")))
            return id
        }
        awaiting[id] = (nextOutgoingID, onResponse)
        emit { w in
            w.writeASCII("{\"jsonrpc\":\"2.0\",\"id\":")
            w.write(id.json)
            w.writeASCII(",\"method\":")
            w.writeString(method)
            if let params {
                w.writeASCII(",\"params\":")
                params(&w)
            }
            w.writeASCII("}")
        }
        return id
    }

    /// Gives up on a request sent to the client: its answer, if it comes, is
    /// ignored, and the client is told with `$/cancelRequest`, as LSP does.
    public func abandon(_ id: RequestID) {
        guard awaiting.removeValue(forKey: id) != nil else { return }
        if abandoned.count >= 1024 { abandoned.removeAll() }
        abandoned.insert(id)
        send(CancelRequestNotification.self, .init(id: id))
    }

    /// Fails the requests still waiting for the client in the order they were
    /// sent, not the dictionary's, so that the answers waiting on them leave
    /// in the same order on every run.
    func failAwaiting(with error: ResponseError) {
        let waiting = awaiting.values.sorted { $0.sent < $1.sent }
        awaiting = [:]
        for w in waiting { w.onResponse(.failure(error)) }
    }

    /// Frames the answer to a request answered directly (its result is in `direct`).
    private func emitDirect(_ request: RequestView) {
        if direct.count >= largeMessageBytes && onTraffic == nil { return emitLargeDirect(request) }
        guard framing == .lines, onTraffic == nil else { return emit { w in writeDirectAnswer(request, into: &w) } }
        // The common case without a closure, which would hold on to self.
        writeDirectAnswer(request, into: &out)
        out.append(0x0A)
    }

    @inline(__always)
    private func writeDirectAnswer(_ request: RequestView, into w: inout JSONWriter) {
        writeDirectHead(request, into: &w)
        direct.withBytes { w.writeRaw($0) }
        w.writeASCII("}")
    }

    /// `emitDirect` for a large result, apart so that the common case stays as short.
    @inline(never)
    private func emitLargeDirect(_ request: RequestView) {
        // What is buffered leaves first, as `flush` sends it: after the commit it may wait for.
        flush()
        direct.withBytes { result in sendLarge(result) { w in writeDirectHead(request, into: &w) } }
    }

    /// A direct answer up to its result.
    @inline(__always)
    private func writeDirectHead(_ request: RequestView, into w: inout JSONWriter) {
        w.writeASCII("{\"jsonrpc\":\"2.0\",\"id\":")
        w.writeRaw(request.idText)
        w.writeASCII(",\"result\":")
    }

    /// Sends a response with a large result (`largeMessageBytes` or more)
    /// from where the result lies instead of copying it into `out`: what `out`
    /// holds, then the framing and `head` (the response up to its result),
    /// then the result, while the closing brace waits in `out`. A 60 MB value
    /// read back was otherwise in memory twice more at once: copied into
    /// `out`, and with Content-Length framing into `scratch` before that.
    /// What `out` holds leaves without `willFlush`: a held answer is released
    /// from within its commit, and `emitLargeDirect` has just flushed. Not
    /// with `onTraffic`, which is handed each message whole.
    private func sendLarge(_ result: UnsafeBufferPointer<UInt8>, head: (inout JSONWriter) -> Void) {
        switch framing {
        case .lines:
            head(&out)
        case .contentLength:
            scratch.reset()
            head(&scratch)
            out.writeASCII("Content-Length: ")
            out.writeInt(scratch.count + result.count + 1)
            out.writeASCII("\r\n\r\n")
            scratch.withBytes { out.writeRaw($0) }
        }
        writeOut()
        loop.write(result)
        out.writeASCII("}")
        if framing == .lines { out.append(0x0A) }
        // The result's buffer grew for it: it goes back at the next pause.
        loop.wantQuiet()
    }

    /// Frames one message into the output buffer.
    private func emit(_ encode: (inout JSONWriter) -> Void) {
        switch framing {
        case .lines:
            let start = out.count
            encode(&out)
            if let onTraffic { out.withBytes(from: start) { onTraffic(.outgoing, $0) } }
            out.append(0x0A)
        case .contentLength:
            scratch.reset()
            encode(&scratch)
            if let onTraffic { scratch.withBytes { onTraffic(.outgoing, $0) } }
            out.writeASCII("Content-Length: ")
            out.writeInt(scratch.count)
            out.writeASCII("\r\n\r\n")
            scratch.withBytes { out.writeRaw($0) }
        }
    }

    /// Makes what responses depend on durable, then writes everything buffered.
    public func flush() {
        handler?.willFlush()
        writeOut()
    }

    /// Writes everything buffered.
    private func writeOut() {
        guard !out.isEmpty else { return }
        defer { out.reset() }
        // A buffer that grew for large answers goes back at the next pause.
        if out.capacity > 2 * Self.flushThreshold { loop.wantQuiet() }
        out.withBytes { loop.write($0) }
    }
}
