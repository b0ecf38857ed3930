import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// `cache.setMany`: stores several entries, all or none.
enum CacheSetMany: MethodDefinition {
    static let method = "cache.setMany"

    struct Params: ParamsObject {
        static let members = ["cache", "group", "entries"]
        static let requiredMembers = ["entries"]
        let cache: String
        let writes: [Cache.Write]

        init(_ p: ParamsReader) throws(ResponseError) {
            let entries = try p.require("entries", as: [EntryWrite].self)
            let group = try p.group()
            // An entry may name its own group; otherwise the request's applies.
            writes = entries.map { e in
                var w = e.write
                if !e.namesGroup { w.key = EntryKey(group: group, key: w.key.key) }
                return w
            }
            cache = try p.cacheName()
        }
    }

    /// One of `entries`: what `cache.set` takes, less the cache.
    struct EntryWrite: ParamsObject {
        static let members = ["group", "key", "value", "data", "ttl", "ifRevision", "ifAbsent"]
        static let requiredMembers = ["key"]
        let write: Cache.Write
        let namesGroup: Bool

        init(_ p: ParamsReader) throws(ResponseError) {
            write = try p.write()
            namesGroup = p.contains("group")
        }
    }

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        let cache = try r.server.cache(p.cache, create: true)!
        let revisions = try r.server.mappingStoreErrors { () throws(StoreError) in try cache.set(p.writes) }
        return .afterCommit(Result(stored: p.writes.count, size: p.writes.reduce(0) { $0 + $1.bytes.count }, revisions: revisions))
    }

    struct Result: MethodResult {
        let stored: Int
        /// The stored values' sizes in bytes, added up.
        let size: Int
        /// Each entry's new revision, in the order of `entries`.
        let revisions: [Int64]
        var json: JSON { ["stored": .int(stored), "size": .int(size), "revisions": .array(revisions.map { .int(Int($0)) })] }
    }
}
