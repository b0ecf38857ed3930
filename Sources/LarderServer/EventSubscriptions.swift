import LarderCore

/// Which caches' events the client asked for, whether they carry the
/// entries' values, and how they are sent.
struct EventSubscriptions {
    private var all = false
    private var caches: Set<String> = []
    private var allWithValues = false
    private var cachesWithValues: Set<String> = []

    mutating func subscribeAll(withValues: Bool = false) {
        all = true
        if withValues { allWithValues = true }
    }

    mutating func subscribe(_ cache: String, withValues: Bool = false) {
        caches.insert(cache)
        if withValues { cachesWithValues.insert(cache) }
    }

    func wants(_ event: CacheEvent) -> Bool { all || caches.contains(event.cache) }
    var wantsAny: Bool { all || !caches.isEmpty }
    var wantsAnyValues: Bool { allWithValues || !cachesWithValues.isEmpty }
    func wantsValues(of cache: String) -> Bool { allWithValues || cachesWithValues.contains(cache) }

    /// Sends `event` to the client in its place among the answers.
    static func send(_ event: CacheEvent, through gate: CommitGate) {
        switch event {
        case .evicted(let cache, let group, let key, let tier, let reason, let value):
            gate.notify(CacheEvicted.self, EntryEvent(cache: cache, group: group, key: key, tier: tier.rawValue,
                                                      reason: reason.rawValue, value: value))
        case .cleared(let cache, let group, let tier, let appVersion, let only):
            gate.notify(CacheCleared.self, .init(cache: cache, group: group, tier: tier, only: only, appVersion: appVersion))
        case .removed(let cache, let group, let key, let value):
            gate.notify(CacheRemoved.self, EntryEvent(cache: cache, group: group, key: key, tier: "all", reason: "removed", value: value))
        }
    }
}
