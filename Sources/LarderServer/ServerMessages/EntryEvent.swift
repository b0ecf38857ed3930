import LarderCore
import LarderJSON
import LarderRPC

/// The params of an event about one entry (`cache.evicted`, `cache.removed`),
/// with its value as `cache.get` shows it when the subscriber asked for values.
struct EntryEvent: OutgoingParams {
    static let members: [MessageMember] = [
        .required("cache", .string), .required("group", .string), .required("key", .string),
        .required("tier", .string), .required("reason", .string),
        .optional("value", .any), .optional("data", .string), .optional("type", .string), .optional("version", .string),
        .optional("form", .string),
    ]
    let cache: String
    let group: String
    let key: String
    let tier: String
    let reason: String
    let value: CacheEvent.Value?

    func write(into w: inout JSONWriter) {
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
    }
}

/// `cache.evicted`: an entry left a tier because of a limit or its expiry.
enum CacheEvicted: NotificationDefinition {
    static let method = "cache.evicted"
    typealias Params = EntryEvent
}

/// `cache.removed`: `cache.remove` removed an entry, from every tier.
enum CacheRemoved: NotificationDefinition {
    static let method = "cache.removed"
    typealias Params = EntryEvent
}
