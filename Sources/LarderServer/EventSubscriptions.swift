import LarderCore
import LarderJSON
import LarderRPC

/// Which caches' events the client asked for, and how they are sent.
struct EventSubscriptions {
    private var all = false
    private var caches: Set<String> = []

    mutating func subscribeAll() { all = true }
    mutating func subscribe(_ cache: String) { caches.insert(cache) }

    func wants(_ event: CacheEvent) -> Bool { all || caches.contains(event.cache) }
    var wantsAny: Bool { all || !caches.isEmpty }

    static func notification(for event: CacheEvent) -> (method: String, params: JSON) {
        switch event {
        case .evicted(let cache, let group, let key, let tier, let reason):
            return ("cache.evicted", ["cache": .string(cache), "group": .string(group), "key": .string(key),
                                      "tier": .string(tier.rawValue), "reason": .string(reason.rawValue)])
        case .cleared(let cache, let group, let tier):
            var o: JSONObject = ["cache": .string(cache)]
            if let group { o.append("group", .string(group)) }
            o.append("tier", .string(tier.rawValue))
            return ("cache.cleared", .object(o))
        }
    }
}
