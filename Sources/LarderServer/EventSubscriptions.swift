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
            var o: JSONObject = ["cache": .string(cache), "group": .string(group), "key": .string(key),
                                 "tier": .string(tier.rawValue), "reason": .string(reason.rawValue)]
            if let value { append(value, to: &o) }
            return ("cache.evicted", .object(o))
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
            var o: JSONObject = ["cache": .string(cache), "group": .string(group), "key": .string(key),
                                 "tier": "all", "reason": "removed"]
            if let value { append(value, to: &o) }
            return ("cache.removed", .object(o))
        }
    }

    /// The value as `cache.get` shows it: `value` (an object's plain value,
    /// with its `type` and `version`) or `data`.
    private static func append(_ value: CacheEvent.Value, to o: inout JSONObject) {
        switch value.kind {
        case .json:
            o.append("value", .fragment(JSONFragment(validJSON: value.bytes)))
        case .data:
            o.append("data", .string(Base64.encode(value.bytes)))
        case .object:
            let stored = (try? JSONParser.parse(value.bytes)).flatMap(ObjectContent.init)
            o.append("value", stored?.plainValue ?? .null)
            if let stored {
                o.append("type", .string(stored.type))
                o.append("version", .string(stored.version.text))
                if stored.isArray { o.append("form", "array") }
            }
        }
    }
}
