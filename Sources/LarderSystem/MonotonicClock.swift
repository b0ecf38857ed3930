#if canImport(Glibc)
import Glibc
#endif

/// `CLOCK_MONOTONIC`: time that only moves forward, for deadlines, budgets
/// and durations. Timestamps a client sees come from the core's `Clock`.
public enum MonotonicClock {
    // Inlinable, so that a read from another module is not a call. The event
    // loop reads the clock once per burst of requests, so either way is within
    // the noise: a memory hit took 3,602 / 3,622 / 3,689 instructions inlined
    // and 3,817 / 3,522 / 3,710 called (callgrind, release build, three runs).
    @inlinable
    public static func nanoseconds() -> UInt64 {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return UInt64(t.tv_sec) &* 1_000_000_000 &+ UInt64(t.tv_nsec)
    }

    @inlinable
    public static func milliseconds() -> Int64 {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Int64(t.tv_sec) * 1000 + Int64(t.tv_nsec) / 1_000_000
    }

    @inlinable
    public static func seconds() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }
}
