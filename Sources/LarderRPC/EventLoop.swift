#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one thread a `Connection` is served on: waits for input with
/// poll(2) and reads it, writes what the connection flushes, and between
/// messages runs due timers, scheduled slices of long work and, at the
/// client's pauses, the release of memory. What the bytes mean is the
/// connection's; the loop only decides when to read, when to flush and
/// what runs in between.
///
/// Served from a pair of descriptors (`run`), or in this process
/// (`init(collecting:)`, `deliver`, `end`): the same connection then gets
/// its input as given and its output is handed over as it is written.
public final class EventLoop {
    private let input: Int32
    private let output: Int32
    /// Takes the output instead of `output` (in-process serving).
    private let collect: ((UnsafeBufferPointer<UInt8>) -> Void)?

    /// Called when no input has come for a moment (`quietAfterMilliseconds`)
    /// after work that left garbage behind: a large message, a large commit,
    /// a buffer grown for a large answer (`wantQuiet()`). The client paused;
    /// a good time to give memory back (`malloc_trim`). Until that pause
    /// comes, each wait for input is a poll(2) with that timeout.
    public var onQuiet: (() -> Void)?
    public var quietAfterMilliseconds: Int32 = 20
    private var quietWanted = false
    private var lastReadDrained = false

    /// Work that continues between messages (long operations run in slices).
    private var scheduled: [() -> Void] = []
    /// Work due at a later moment (`after(milliseconds:_:)`).
    private var timers = Timers()

    /// Timers wait for the end of the input, then run at once, soonest
    /// first: a session read from a file is then served the same however
    /// fast the machine is. Differential fuzzing compares two runs of one
    /// session; with a retry 1 ms away, whether it ran before the next
    /// message was read depended on the load, and the runs differed.
    var timersWaitForEndOfInput: Bool {
        get { timers.held }
        set { timers.held = newValue }
    }

    private(set) var stopped = false
    private var exitCode: Int32 = 0
    /// The client stopped reading: nothing more can be said to it.
    private(set) var clientGone = false
    /// The input ended: the client can answer nothing more.
    public private(set) var inputEnded = false

    public init(input: Int32, output: Int32) {
        self.input = input
        self.output = output
        collect = nil
    }

    /// A loop in this process: input comes from `deliver`, and every write
    /// is handed to `output` as it happens.
    public init(collecting output: @escaping (UnsafeBufferPointer<UInt8>) -> Void) {
        input = -1
        self.output = -1
        collect = output
    }

    /// Serves `connection` until the input ends or `stop` is called; returns the exit code.
    func run(_ connection: Connection) -> Int32 {
        while !stopped {
            if !timers.isEmpty, let due = timers.takeDue() {
                due()
                connection.flush()
                continue
            }
            // Scheduled work runs only while no input waits, so requests keep being served.
            if !scheduled.isEmpty && !inputIsReady() {
                scheduled.removeFirst()()
                connection.flush()
                continue
            }
            // Only after a read that drained the input: while it keeps coming in
            // full chunks there is no pause to wait for.
            if quietWanted && lastReadDrained && !inputArrives(within: quietAfterMilliseconds) {
                quiet(connection)
            }
            // A read would block past the next timer: wait for input only until it is due.
            if let wait = timers.millisecondsToNext, !inputArrives(within: wait) { continue }
            let n = connection.decoder.read(from: input)
            if n < 0 {
                if errno == EINTR { continue }
                Log.error("reading input failed: \(String(cString: strerror(errno)))")
                break
            }
            if n == 0 {
                connection.handleEndOfInput()
                break
            }
            lastReadDrained = n < FrameDecoder.chunk
            connection.handleInput()
            // A read that did not fill its chunk most likely drained the pipe:
            // flush without asking poll(2). That saves a system call per request
            // when a client waits for each answer, and keeps answers flowing to a
            // pipelining client. Only while answers are held for costly work (a
            // commit) is it worth waiting until the input is really drained.
            let drained = lastReadDrained && !connection.isHolding
            if connection.outputCount >= Connection.flushThreshold || drained || !inputIsReady() { connection.flush() }
        }
        return finish(connection)
    }

    /// In-process serving: `bytes` arrive as one read that drained the
    /// input; they are handled and answered, then due timers and scheduled
    /// work run until none is left.
    public func deliver(_ bytes: some Collection<UInt8>, to connection: Connection) {
        guard !stopped else { return }
        connection.decoder.append(bytes)
        connection.handleInput()
        connection.flush()
        while !stopped {
            if !timers.isEmpty, let due = timers.takeDue() {
                due()
            } else if !scheduled.isEmpty {
                scheduled.removeFirst()()
            } else {
                break
            }
            connection.flush()
        }
    }

    /// In-process serving: the input ends; returns the exit code.
    public func end(_ connection: Connection) -> Int32 {
        if !stopped { connection.handleEndOfInput() }
        return finish(connection)
    }

    /// After the input: work already under way finishes, and handlers
    /// waiting on the client answer now. Those answers still go out: the
    /// client may still be reading.
    private func finish(_ connection: Connection) -> Int32 {
        inputEnded = true
        runScheduledWork(connection)
        connection.failAwaiting(with: ResponseError(code: .requestCancelled, message: "the client closed the connection"))
        // Nothing waited for can come now: timers run at once (a retry finds the client gone).
        while !timers.isEmpty {
            for work in timers.takeAll() { work() }
        }
        runScheduledWork(connection)
        connection.flush()
        connection.handler?.connectionClosed()
        return exitCode
    }

    /// Asks for `onQuiet` at the client's next pause.
    public func wantQuiet() {
        quietWanted = true
    }

    /// Buffers that grew for large messages go back to their first size;
    /// then the owner may release what the process no longer uses.
    private func quiet(_ connection: Connection) {
        quietWanted = false
        connection.shrinkBuffers()
        onQuiet?()
    }

    /// Runs `work` once no input is waiting: long operations do a slice of
    /// work, schedule the next, and meanwhile other requests are served.
    public func schedule(_ work: @escaping () -> Void) {
        scheduled.append(work)
    }

    /// Runs `work` once `milliseconds` have passed (on the monotonic clock),
    /// between messages; at the end of input, at once.
    @discardableResult
    public func after(milliseconds: Int, _ work: @escaping () -> Void) -> TimerID {
        timers.add(after: milliseconds, work)
    }

    public func cancel(_ timer: TimerID) {
        timers.cancel(timer)
    }

    private func runScheduledWork(_ connection: Connection) {
        while !scheduled.isEmpty && !clientGone {
            scheduled.removeFirst()()
            connection.flush()
        }
    }

    /// Stops after the current message; serving then returns `code`.
    public func stop(exitCode code: Int32) {
        stopped = true
        exitCode = code
    }

    private func inputIsReady() -> Bool {
        inputArrives(within: 0)
    }

    private func inputArrives(within milliseconds: Int32) -> Bool {
        var fds = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
        return poll(&fds, 1, milliseconds) > 0
    }

    /// Writes `raw` to the client whole, unless it has gone away.
    func write(_ raw: UnsafeBufferPointer<UInt8>) {
        guard !clientGone else { return }
        if let collect { return collect(raw) }
        var written = 0
        while written < raw.count {
            let n = Glibc.write(output, raw.baseAddress! + written, raw.count - written)
            if n > 0 { written += n; continue }
            if n < 0 && errno == EINTR { continue }
            // EPIPE: the client went away. Nothing more can be said to it.
            Log.info("the client stopped reading (\(String(cString: strerror(errno)))); stopping")
            clientGone = true
            stopped = true
            return
        }
    }
}
