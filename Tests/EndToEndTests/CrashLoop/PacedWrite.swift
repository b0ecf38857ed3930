#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A burst written to the server's stdin on a background thread, a slice at
/// a time with pauses between: each pause lets the server drain its input
/// and make a group commit, so that a burst is several commits, and a kill
/// can fall between, or during, any of them. (Written at once, a burst fits
/// the enlarged pipe and is a single commit.)
final class PacedWrite: @unchecked Sendable {
    struct Slice {
        let bytes: [UInt8]
        let pauseAfter: UInt32
    }

    private let done = DispatchSemaphore(value: 0)

    /// Starts writing `slices` to `fd`; it stops at the first failed write (the server died).
    init(_ slices: [Slice], to fd: Int32) {
        Thread.detachNewThread { [self] in
            for slice in slices {
                guard Self.writeAll(fd, slice.bytes) else { break }
                if slice.pauseAfter > 0 { usleep(slice.pauseAfter) }
            }
            done.signal()
        }
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { raw in
            var written = 0
            while written < raw.count {
                let n = write(fd, raw.baseAddress! + written, raw.count - written)
                if n > 0 { written += n } else if n < 0 && errno == EINTR { continue } else { return false }
            }
            return true
        }
    }

    /// Whether the writing ended (everything written, or the server gone) within `timeout` seconds.
    func wait(timeout: Double) -> Bool {
        done.wait(timeout: .now() + timeout) == .success
    }
}
