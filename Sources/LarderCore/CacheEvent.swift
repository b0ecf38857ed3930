/// Something a subscribed client is told about.
public enum CacheEvent: Sendable, Equatable {
    public enum Tier: String, Sendable { case memory, disk, all }
    public enum Reason: String, Sendable {
        case capacity, expired
        /// The store's disk budget (`--max-store-bytes`), across caches.
        case storeBudget
    }

    /// The entry an event is about, when the subscriber asked for values
    /// (`Store.eventValues`): Nativefier's delegate was handed the object removed.
    public struct Value: Sendable, Equatable {
        public let kind: Entry.Kind
        public let bytes: [UInt8]
    }

    /// An entry left a tier without being asked to (limits or expiry).
    case evicted(cache: String, group: String, key: String, tier: Tier, reason: Reason, value: Value? = nil)
    /// A tier was cleared by `cache.clear`, or every tier because an app of
    /// another version first used the cache (`appVersion`), or the disk tier
    /// because the cache became memory-only, or by `Store.clear` (`only` the
    /// objects or the plain entries, when not all).
    case cleared(cache: String, group: String?, tier: Tier, appVersion: VersionChange? = nil, only: ClearedEntries? = nil)

    public struct VersionChange: Sendable, Equatable {
        public let from: String
        public let to: String
    }
    /// An entry was removed by `cache.remove`, from every tier.
    case removed(cache: String, group: String, key: String, value: Value? = nil)

    public var cache: String {
        switch self {
        case .evicted(let c, _, _, _, _, _), .cleared(let c, _, _, _, _), .removed(let c, _, _, _): return c
        }
    }
}
