import LarderCore
import LarderRPC

/// `cache.touch`: restarts an entry's lifetime from now (Cashier's refreshValidation).
enum CacheTouch: MethodHandler {
    static let method = "cache.touch"
    static let requiredParams = ["key"]

    static func handle(_ r: Request) throws(ResponseError) -> Response {
        let key = try r.params.entryKey()
        guard let cache = try r.server.cache(r, create: false) else { return .result(["found": false]) }
        let found = try r.server.core { () throws(StoreError) in try cache.touch(key) }
        return .afterCommit(["found": .bool(found)])
    }
}
