import LarderCore
import LarderJSON
import LarderRPC

/// `cache.setMany`: stores several entries, all or none.
enum CacheSetMany: MethodHandler {
    static let method = "cache.setMany"
    static let requiredParams = ["entries"]

    static func handle(_ r: Request) throws(ResponseError) -> Response {
        let items = try r.params.require("entries", as: [Params].self)
        let group = try r.params.group()
        var writes: [Cache.Write] = []
        writes.reserveCapacity(items.count)
        for item in items {
            var w = try item.write()
            // An entry may name its own group; otherwise the request's applies.
            if !item.contains("group") { w.key = EntryKey(group: group, key: w.key.key) }
            writes.append(w)
        }
        let cache = try r.server.cache(r, create: true)!
        try r.server.core { () throws(StoreError) in try cache.set(writes) }
        return .afterCommit(["stored": .int(writes.count), "size": .int(writes.reduce(0) { $0 + $1.bytes.count })])
    }
}
