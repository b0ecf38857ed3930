import LarderCore
import LarderJSON
import LarderRPC

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

    static func notification(for event: CacheEvent) -> (method: String, params: JSON) {
        switch event {
        case .evicted(let cache, let group, let key, let tier, let reason, let value):
            return ("cache.evicted", entryParams(cache: cache, group: group, key: key, tier: tier.rawValue,
                                                 reason: reason.rawValue, value: value))
        case .cleared(let cache, let group, let tier, let appVersion, let only):
            var o: JSONObject = ["cache": .string(cache)]
            if let group { o.append("group", .string(group)) }
            o.append("tier", .string(tier.rawValue))
            if let only { o.append("kind", .string(StoreClear.name(of: only))) }
            if let appVersion {
                o.append("reason", "appVersion")
                o.append("from", .string(appVersion.from))
                o.append("to", .string(appVersion.to))
            }
            return ("cache.cleared", .object(o))
        case .removed(let cache, let group, let key, let value):
            return ("cache.removed", entryParams(cache: cache, group: group, key: key, tier: "all", reason: "removed", value: value))
        }
    }

    /// The params of an event about one entry, with its value as `cache.get`
    /// shows it when the subscriber asked for values.
    private static func entryParams(cache: String, group: String, key: String, tier: String, reason: String,
                                    value: CacheEvent.Value?) -> JSON {
        var w = JSONWriter(capacity: 128 + (value?.bytes.count ?? 0) * 4 / 3)
        w.writeASCII("{\"cache\":")
        w.writeString(cache)
        w.writeASCII(",\"group\":")
        w.writeString(group)
        w.writeASCII(",\"key\":")
        w.writeString(key)
        w.writeASCII(",\"tier\":")
        w.writeString(tier)
        w.writeASCII(",\"reason\":")
        w.writeString(reason)
        if let value {
            w.writeASCII(",")
            CacheGet.writeValue(kind: value.kind, bytes: value.bytes, into: &w)
        }
        w.writeASCII("}")
        return .fragment(JSONFragment(validJSON: w.copiedBytes))
    }
}
