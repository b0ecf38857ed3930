import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// `cache.has`: whether a key is stored, and whether it is still valid (not expired).
enum CacheHas: MethodDefinition {
    static let method = "cache.has"
    typealias Params = EntryParams

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        guard let cache = try r.server.cache(p.cache, create: false) else { return .result(Result(found: false, valid: false)) }
        let (found, valid) = try r.server.mappingStoreErrors { () throws(StoreError) in try cache.has(p.key) }
        return .result(Result(found: found, valid: valid))
    }

    struct Result: MethodResult {
        let found: Bool
        /// Found and not expired.
        let valid: Bool
        var json: JSON { ["found": .bool(found), "valid": .bool(valid)] }
    }
}
