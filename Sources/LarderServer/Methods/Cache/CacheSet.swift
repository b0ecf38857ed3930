import LarderCore
import LarderRPC

/// `cache.set`: stores a value; answered once it is committed.
enum CacheSet: MethodHandler {
    static let method = "cache.set"
    static let requiredParams = ["key"]

    static func handle(_ r: Request) throws(ResponseError) -> Response {
        let write = try r.params.write()
        let cache = try r.server.cache(r, create: true)!
        try r.server.core { () throws(StoreError) in try cache.set(write) }
        return .afterCommit(["stored": true, "size": .int(write.bytes.count)])
    }
}
