/// Something a subscribed client is told about.
public enum CacheEvent: Sendable, Equatable {
    public enum Tier: String, Sendable { case memory, disk, all }
    public enum Reason: String, Sendable { case capacity, expired }

    /// An entry left a tier without being asked to (limits or expiry).
    case evicted(cache: String, group: String, key: String, tier: Tier, reason: Reason)
    /// A tier was cleared by `cache.clear`.
    case cleared(cache: String, group: String?, tier: Tier)

    public var cache: String {
        switch self {
        case .evicted(let c, _, _, _, _), .cleared(let c, _, _): return c
        }
    }
}
