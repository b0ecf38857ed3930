#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import LarderSystem

extension Subprocess {
    /// Starts `path` with its stdin and stdout on pipes and its stderr ours;
    /// the benchmark cannot go on without it.
    static func spawn(_ path: String, _ arguments: [String]) -> Subprocess {
        do {
            return try Subprocess(path, arguments: arguments)
        } catch {
            Progress.fail(error.description)
        }
    }

    /// Closes the child's stdin, discards what it still writes, and reaps it.
    /// Returns the exit code, or 128 + the signal that killed it.
    @discardableResult
    func finish() -> Int32 {
        closeInput()
        let fd = outputDescriptor
        if fd >= 0 {
            // The driver may have left it non-blocking.
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
            var sink = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let n = sink.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
                if n > 0 || (n < 0 && errno == EINTR) { continue }
                break
            }
        }
        closeOutput()
        return wait().code
    }

    var residentKiB: Int? { TextFile.residentKiB(pid: pid) }
    var peakResidentKiB: Int? { TextFile.peakResidentKiB(pid: pid) }
}
