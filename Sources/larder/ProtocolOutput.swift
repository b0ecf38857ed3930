#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeps stdout for the protocol alone.
enum ProtocolOutput {
    /// Duplicates fd 1 to a private descriptor for protocol messages and
    /// points fd 1 at stderr, so a stray `print` can never corrupt the stream.
    static func claim() -> Int32 {
        let fd = dup(1)
        guard fd >= 0 else { return 1 }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        dup2(2, 1)
        return fd
    }
}
