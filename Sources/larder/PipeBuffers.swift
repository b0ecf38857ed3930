#if canImport(Glibc)
import Glibc
#endif

/// Larger kernel buffers for the pipes to and from the client.
///
/// A Linux pipe holds 64 KiB by default: a client with a thousand requests
/// in flight has a few hundred KiB of answers coming, and with 64 KiB the two
/// processes take turns sleeping on each other. Up to the system's
/// `pipe-max-size` (1 MiB unless changed) the buffer is ours to ask for; a
/// descriptor that is not a pipe, or a refusal, leaves things as they were.
enum PipeBuffers {
    /// `F_SETPIPE_SZ` from <fcntl.h>, which the Glibc module leaves out (it is behind _GNU_SOURCE).
    private static let setPipeSize: Int32 = 1031
    static let size: Int32 = 1 << 20

    static func enlarge(_ fds: Int32...) {
        #if os(Linux)
        for fd in fds { _ = fcntl(fd, setPipeSize, size) }
        #endif
    }
}
