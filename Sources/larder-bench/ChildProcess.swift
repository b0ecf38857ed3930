#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// A child process with its stdin and stdout on pipes; stderr is inherited.
final class ChildProcess {
    let pid: pid_t
    /// Write end of the child's stdin.
    let stdinFD: Int32
    /// Read end of the child's stdout.
    let stdoutFD: Int32
    private var inputOpen = true
    private var reaped = false

    private init(pid: pid_t, stdinFD: Int32, stdoutFD: Int32) {
        self.pid = pid
        self.stdinFD = stdinFD
        self.stdoutFD = stdoutFD
    }

    static func spawn(_ path: String, _ arguments: [String]) -> ChildProcess {
        var toChild: [Int32] = [-1, -1]
        var fromChild: [Int32] = [-1, -1]
        // pipe2 is not imported; the bench is single-threaded, so pipe + FD_CLOEXEC does the same.
        guard pipe(&toChild) == 0, pipe(&fromChild) == 0 else {
            Progress.fail("pipe failed: \(Progress.errorText())")
        }
        for fd in toChild + fromChild { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // dup2 clears close-on-exec on the copies, so only fds 0 and 1 reach the child.
        posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
        var argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) }
        argv.append(nil)
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, path, &actions, nil, argv, environ)
        close(toChild[0])
        close(fromChild[1])
        guard rc == 0 else {
            close(toChild[1])
            close(fromChild[0])
            Progress.fail("cannot start \(path): \(Progress.errorText(rc))")
        }
        return ChildProcess(pid: pid, stdinFD: toChild[1], stdoutFD: fromChild[0])
    }

    func closeInput() {
        guard inputOpen else { return }
        inputOpen = false
        close(stdinFD)
    }

    /// Closes the child's stdin, discards what it still writes, and reaps it.
    /// Returns the exit code, or 128 + the signal that killed it.
    @discardableResult
    func finish() -> Int32 {
        guard !reaped else { return 0 }
        closeInput()
        var sink = [UInt8](repeating: 0, count: 64 * 1024)
        let flags = fcntl(stdoutFD, F_GETFL)
        _ = fcntl(stdoutFD, F_SETFL, flags & ~O_NONBLOCK)
        while true {
            let n = sink.withUnsafeMutableBytes { Glibc.read(stdoutFD, $0.baseAddress, $0.count) }
            if n > 0 || (n < 0 && errno == EINTR) { continue }
            break
        }
        close(stdoutFD)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        reaped = true
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }

    var residentKiB: Int? { TextFile.residentKiB(pid: pid) }
    var peakResidentKiB: Int? { TextFile.peakResidentKiB(pid: pid) }
}
