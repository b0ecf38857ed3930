#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// A child process started with `posix_spawn`, its standard descriptors on
/// pipes, a pseudo-terminal, /dev/null, a file or ours.
///
/// Our ends of its pipes are close-on-exec, so that no child started later
/// inherits them: closing its input here must reach it as the end of input.
/// They are closed when this object goes away; the child is not stopped then
/// (`kill` and `wait` do that), and it is reaped only by `wait`.
public final class Subprocess {
    /// Where one of the child's standard descriptors leads.
    public enum Stream: Sendable {
        /// A pipe whose other end is ours.
        case pipe
        /// A pseudo-terminal whose other end is ours, as for a person typing (input only).
        case terminal
        /// The descriptor of this process, shared.
        case inherited
        /// /dev/null.
        case null
        /// A file, created or emptied, readable by all (output only).
        case file(String)
    }

    /// How a child ended.
    public enum Termination: Equatable, Sendable, CustomStringConvertible {
        case exited(Int32)
        case signalled(Int32)

        /// The exit code, or 128 + the signal, as a shell reports it.
        public var code: Int32 {
            switch self {
            case .exited(let code): code
            case .signalled(let signal): 128 + signal
            }
        }

        public var description: String {
            switch self {
            case .exited(let code): "exit status \(code)"
            case .signalled(let signal): "signal \(signal)"
            }
        }

        init(waitStatus status: Int32) {
            // WIFEXITED / WEXITSTATUS / WTERMSIG are macros Swift does not import.
            let signal = status & 0x7F
            self = signal == 0 ? .exited((status >> 8) & 0xFF) : .signalled(signal)
        }
    }

    public struct SpawnError: Error, CustomStringConvertible {
        public let description: String
    }

    /// What one `read` of the child's output gave.
    public enum OutputRead: Equatable {
        /// This many bytes, appended.
        case bytes(Int)
        /// The child closed its output (or it was closed here).
        case end
        /// Nothing came before the timeout.
        case timedOut
    }

    public let pid: pid_t
    /// Our end of the child's input, or -1 when it is not ours or closed.
    public private(set) var inputDescriptor: Int32
    /// Our end of the child's output, or -1 when it is not ours or closed.
    public private(set) var outputDescriptor: Int32
    /// Our end of the child's error output, or -1 when it is not ours, closed or taken.
    public private(set) var errorDescriptor: Int32
    public private(set) var termination: Termination?

    /// Starts `path` with `arguments` (after `path` itself as `argv[0]`) in
    /// `environment` (nil: this process's own). `defaultSignals` are set back
    /// to their default action in the child, where this process ignores them.
    public init(_ path: String, arguments: [String], environment: [String: String]? = nil,
                input: Stream = .pipe, output: Stream = .pipe, error: Stream = .inherited,
                defaultSignals: [Int32] = []) throws(SpawnError) {
        var ends: [(child: Int32, ours: Int32)] = []
        func connect(_ stream: Stream, as fd: Int32) -> Bool {
            var pair: [Int32] = [-1, -1]
            switch stream {
            case .pipe:
                guard pipe(&pair) == 0 else { return false }
                ends.append(fd == 0 ? (pair[0], pair[1]) : (pair[1], pair[0]))
            case .terminal:
                var ours: Int32 = -1, child: Int32 = -1
                guard openpty(&ours, &child, nil, nil, nil) == 0 else { return false }
                ends.append((child, ours))
            case .inherited, .null, .file:
                ends.append((-1, -1))
            }
            return true
        }
        func closeAll() { for e in ends { for fd in [e.child, e.ours] where fd >= 0 { close(fd) } } }
        guard connect(input, as: 0), connect(output, as: 1), connect(error, as: 2) else {
            let why = String(cString: strerror(errno))
            closeAll()
            throw SpawnError(description: "cannot connect the input and output of \(path): \(why)")
        }
        // posix_spawn cannot set the flag on creation (pipe2 is not imported);
        // spawning from one thread at a time leaves no window.
        for e in ends where e.ours >= 0 {
            _ = fcntl(e.ours, F_SETFD, FD_CLOEXEC)
            _ = fcntl(e.child, F_SETFD, FD_CLOEXEC)
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (fd, stream) in [input, output, error].enumerated() {
            let target = Int32(fd)
            switch stream {
            // dup2 clears close-on-exec on the copy, so only fds 0, 1 and 2 reach the child.
            case .pipe, .terminal: posix_spawn_file_actions_adddup2(&actions, ends[fd].child, target)
            case .inherited: break
            case .null: posix_spawn_file_actions_addopen(&actions, target, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
            case .file(let file): posix_spawn_file_actions_addopen(&actions, target, file, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            }
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        if !defaultSignals.isEmpty {
            var signals = sigset_t()
            sigemptyset(&signals)
            for s in defaultSignals { sigaddset(&signals, s) }
            posix_spawnattr_setsigdefault(&attributes, &signals)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF))
        }

        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?]? = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer {
            argv.forEach { free($0) }
            envp?.forEach { free($0) }
        }
        var child: pid_t = 0
        let rc = envp.map { posix_spawn(&child, path, &actions, &attributes, argv, $0) }
            ?? posix_spawn(&child, path, &actions, &attributes, argv, environ)
        for e in ends where e.child >= 0 { close(e.child) }
        guard rc == 0 else {
            for e in ends where e.ours >= 0 { close(e.ours) }
            throw SpawnError(description: "cannot start \(path): \(String(cString: strerror(rc)))")
        }
        pid = child
        inputDescriptor = ends[0].ours
        outputDescriptor = ends[1].ours
        errorDescriptor = ends[2].ours
    }

    deinit {
        for fd in [inputDescriptor, outputDescriptor, errorDescriptor] where fd >= 0 { close(fd) }
    }

    // MARK: - Input

    /// Writes all of `bytes` to the child's input; false when it cannot take them
    /// (it exited, or the input is closed or not ours).
    @discardableResult
    public func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        inputDescriptor >= 0 && Self.writeAll(inputDescriptor, bytes)
    }

    @discardableResult
    public func write(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { write($0) }
    }

    /// Writes all of `bytes` to `fd`, as `write` does; for a writer on another thread.
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var written = 0
        while written < bytes.count {
            let n = Glibc.write(fd, bytes.baseAddress! + written, bytes.count - written)
            if n > 0 { written += n; continue }
            if n < 0 && errno == EINTR { continue }
            return false
        }
        return true
    }

    /// Closes the child's input: the end of its input.
    public func closeInput() {
        guard inputDescriptor >= 0 else { return }
        close(inputDescriptor)
        inputDescriptor = -1
    }

    // MARK: - Output

    /// Waits up to `timeoutMilliseconds` (-1: without end) for the child's
    /// output and appends what one read gives, up to 64 KiB, to `buffer`.
    public func readOutput(appendingTo buffer: inout [UInt8], timeoutMilliseconds: Int32) -> OutputRead {
        guard outputDescriptor >= 0 else { return .end }
        while true {
            var fds = pollfd(fd: outputDescriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&fds, 1, timeoutMilliseconds)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { return .timedOut }
            // Read into a piece of its own and append what came: growing the
            // buffer by 64 KiB of zeros and cutting it back on every read cost
            // a debug build's tests a millisecond or more a line (a test of
            // four processes' reads and writes took 43 s in place of 0.8 s).
            let n = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 65536) { piece in
                let n = Glibc.read(outputDescriptor, piece.baseAddress!, piece.count)
                if n > 0 { buffer.append(contentsOf: UnsafeBufferPointer(rebasing: piece[..<n])) }
                return n
            }
            if n < 0 && errno == EINTR { continue }
            return n > 0 ? .bytes(n) : .end
        }
    }

    /// Stops reading the child's output for good: its next write fails (EPIPE).
    public func closeOutput() {
        guard outputDescriptor >= 0 else { return }
        close(outputDescriptor)
        outputDescriptor = -1
    }

    /// Our end of the child's error output, now the caller's to read and close.
    public func takeErrorDescriptor() -> Int32 {
        defer { errorDescriptor = -1 }
        return errorDescriptor
    }

    // MARK: - Ending

    /// Sends `signal` (SIGKILL by default), unless the child was reaped: its pid may be another's by now.
    public func kill(_ signal: Int32 = SIGKILL) {
        guard termination == nil else { return }
        _ = Glibc.kill(pid, signal)
    }

    /// Waits for the child to end, and reaps it.
    @discardableResult
    public func wait() -> Termination {
        if let termination { return termination }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let ended = Termination(waitStatus: status)
        termination = ended
        return ended
    }

    /// Waits up to `timeoutMilliseconds` for the child to end, and reaps it;
    /// nil while it is still running.
    public func wait(timeoutMilliseconds: Int) -> Termination? {
        if let termination { return termination }
        let deadline = MonotonicClock.milliseconds() + Int64(timeoutMilliseconds)
        while true {
            var status: Int32 = 0
            let r = waitpid(pid, &status, WNOHANG)
            if r == pid {
                termination = Termination(waitStatus: status)
                return termination
            }
            if r < 0 && errno != EINTR { return nil }
            if MonotonicClock.milliseconds() >= deadline { return nil }
            usleep(2_000)
        }
    }
}
