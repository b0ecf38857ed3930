import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// `cache.remove`: deletes a key from every tier.
enum CacheRemove: MethodDefinition {
    static let method = "cache.remove"
    typealias Params = ConditionalEntryParams

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        guard let cache = try r.server.cache(p.cache, create: false) else {
            if let expected = p.ifRevision {
                throw StoreError.conditionFailed(key: p.key.key, expected: "revision \(expected)", revision: nil).responseError
            }
            return .result(Result(removed: false))
        }
        let removed = try r.server.mappingStoreErrors { () throws(StoreError) in try cache.remove(p.key, ifRevision: p.ifRevision) }
        return .afterCommit(Result(removed: removed))
    }

    struct Result: MethodResult {
        /// Whether there was an entry to remove.
        let removed: Bool
        var json: JSON { ["removed": .bool(removed)] }
    }
}
