#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LarderSystem

/// Work due at moments of the monotonic clock, for the connection's loop to
/// run between messages: a retry after its delay, a request to the client
/// that has waited too long. Few are pending at once (one or two per fetch
/// in flight), so a sorted array does.
struct Timers {
    private var pending: [(due: Int64, id: TimerID, work: () -> Void)] = []
    private var nextID = 0
    /// Whether nothing is due before the input ends (`EventLoop.timersWaitForEndOfInput`).
    var held = false

    var isEmpty: Bool { pending.isEmpty }

    mutating func add(after milliseconds: Int, _ work: @escaping () -> Void) -> TimerID {
        nextID += 1
        let id = TimerID(rawValue: nextID)
        let due = MonotonicClock.milliseconds() + Int64(max(0, milliseconds))
        // After every timer due at the same moment: timers set in order run in order.
        let index = pending.firstIndex { $0.due > due } ?? pending.count
        pending.insert((due, id, work), at: index)
        return id
    }

    mutating func cancel(_ id: TimerID) {
        pending.removeAll { $0.id == id }
    }

    /// Removes and returns the work of the first timer that is due, if any.
    mutating func takeDue() -> (() -> Void)? {
        guard !held, let first = pending.first, first.due <= MonotonicClock.milliseconds() else { return nil }
        return pending.removeFirst().work
    }

    /// Removes and returns the work of every timer, soonest first.
    mutating func takeAll() -> [() -> Void] {
        defer { pending = [] }
        return pending.map(\.work)
    }

    /// Milliseconds until the first timer is due (0 if one already is), or nil if none is pending.
    var millisecondsToNext: Int32? {
        guard !held, let first = pending.first else { return nil }
        return Int32(clamping: max(0, first.due - MonotonicClock.milliseconds()))
    }
}

/// A timer set with `Connection.after(milliseconds:_:)`, to cancel it.
public struct TimerID: Hashable, Sendable {
    let rawValue: Int
}
