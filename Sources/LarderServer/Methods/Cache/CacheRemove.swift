import LarderCore
import LarderRPC

/// `cache.remove`: deletes a key from every tier.
enum CacheRemove: MethodHandler {
    static let method = "cache.remove"
    static let requiredParams = ["key"]

    static func handle(_ r: Request) throws(ResponseError) -> Response {
        let key = try r.params.entryKey()
        guard let cache = try r.server.cache(r, create: false) else { return .result(["removed": false]) }
        let removed = try r.server.core { () throws(StoreError) in try cache.remove(key) }
        return .afterCommit(["removed": .bool(removed)])
    }
}
