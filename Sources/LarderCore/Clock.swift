#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where "now" comes from: the system's real-time clock, or a fixed clock
/// that moves only when told (so expiry is testable without sleeping).
public final class Clock {
    private var fixed: Int64?

    /// The system clock.
    public init() {}

    /// A clock stopped at `milliseconds` since 1970.
    public init(fixedAt milliseconds: Int64) { fixed = milliseconds }

    public var isFixed: Bool { fixed != nil }

    /// Milliseconds since 1970-01-01T00:00:00Z.
    public var now: Int64 {
        if let fixed { return fixed }
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }

    /// Moves a fixed clock forward. Returns false for the system clock, which cannot be moved.
    public func advance(milliseconds: Int64) -> Bool {
        guard let f = fixed else { return false }
        fixed = f + milliseconds
        return true
    }
}
