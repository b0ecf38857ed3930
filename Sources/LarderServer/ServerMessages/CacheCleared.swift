import LarderCore
import LarderJSON
import LarderRPC

/// `cache.cleared`: a tier of a cache, or a group of it, was emptied.
enum CacheCleared: NotificationDefinition {
    static let method = "cache.cleared"

    struct Params: OutgoingParams {
        static let members: [MessageMember] = [
            .required("cache", .string), .optional("group", .string), .required("tier", .string), .optional("kind", .string),
            .optional("reason", .string), .optional("from", .string), .optional("to", .string),
        ]
        let cache: String
        /// Nil when every group was cleared.
        let group: String?
        let tier: CacheEvent.Tier
        /// Only the objects or only the plain entries (`store.clear {kind}`); nil for all.
        let only: ClearedEntries?
        /// An app of another version first used the cache.
        let appVersion: CacheEvent.VersionChange?

        func write(into w: inout JSONWriter) {
            w.writeASCII("{\"cache\":")
            w.writeString(cache)
            if let group {
                w.writeASCII(",\"group\":")
                w.writeString(group)
            }
            w.writeASCII(",\"tier\":")
            w.writeString(tier.rawValue)
            if let only {
                w.writeASCII(",\"kind\":")
                w.writeString(StoreClear.name(of: only))
            }
            if let appVersion {
                w.writeASCII(",\"reason\":\"appVersion\",\"from\":")
                w.writeString(appVersion.from)
                w.writeASCII(",\"to\":")
                w.writeString(appVersion.to)
            }
            w.writeASCII("}")
        }
    }
}
