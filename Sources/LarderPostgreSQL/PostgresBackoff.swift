import LarderStorage

/// How long a connection waits between attempts to reach a server that is
/// away: the first wait is `first`, each next one twice as long, up to
/// `limit`, each shortened by up to `jitter` of itself at random, so that
/// the sidecars of many hosts that lost the server together do not all come
/// back at the same instant. A successful connection starts over.
///
/// The longest wait is 1 s by default: a network that comes back is used
/// within about a second even when the attempts failed at once meanwhile
/// ("No route to host", as a link that is down makes them after the
/// kernel's three unanswered ARP requests), and a server refusing
/// connections meets one attempt a second from each client.
public struct PostgresBackoff: Sendable {
    public var first: Duration
    public var limit: Duration
    /// The fraction (0 to 1) of each wait that may be taken off at random.
    public var jitter: Double
    private var current: Duration?

    public init(first: Duration = .milliseconds(50), limit: Duration = .seconds(1), jitter: Double = 0.25) {
        self.first = first
        self.limit = limit
        self.jitter = min(max(jitter, 0), 1)
    }

    /// The wait before the next attempt, after one more failed.
    public mutating func next() -> Duration {
        let wait = current.map { min($0 * 2, limit) } ?? min(first, limit)
        current = wait
        guard jitter > 0 else { return wait }
        return wait * (1 - Double.random(in: 0...jitter))
    }

    /// Forgets the failures: the next wait is `first` again.
    public mutating func reset() { current = nil }
}
