#if canImport(Glibc)
import Glibc
#endif

/// Nanoseconds from CLOCK_MONOTONIC.
enum MonotonicClock {
    @inline(__always)
    static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }
}
