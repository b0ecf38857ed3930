import LarderCore
import LarderRPC

/// `cache.has`: whether a key is stored, and whether it is still valid (not expired).
enum CacheHas: MethodHandler {
    static let method = "cache.has"
    static let requiredParams = ["key"]

    static func handle(_ r: Request) throws(ResponseError) -> Response {
        let key = try r.params.entryKey()
        guard let cache = try r.server.cache(r, create: false) else { return .result(["found": false, "valid": false]) }
        let (found, valid) = try r.server.core { () throws(StoreError) in try cache.has(key) }
        return .result(["found": .bool(found), "valid": .bool(valid)])
    }
}
