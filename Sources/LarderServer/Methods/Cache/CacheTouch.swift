import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// `cache.touch`: restarts an entry's lifetime from now (Cashier's refreshValidation).
enum CacheTouch: MethodDefinition {
    static let method = "cache.touch"
    typealias Params = ConditionalEntryParams

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        guard let cache = try r.server.cache(p.cache, create: false) else {
            if let expected = p.ifRevision {
                throw StoreError.conditionFailed(key: p.key.key, expected: "revision \(expected)", revision: nil).responseError
            }
            return .result(Result(touched: .absent))
        }
        let touched = try r.server.mappingStoreErrors { () throws(StoreError) in try cache.touch(p.key, ifRevision: p.ifRevision) }
        return .afterCommit(Result(touched: touched))
    }

    struct Result: MethodResult {
        let touched: Cache.Touched
        var json: JSON {
            switch touched {
            case .absent: return ["found": false]
            case .touched: return ["found": true]
            case .revived: return ["found": true, "revived": true]
            }
        }
    }
}
