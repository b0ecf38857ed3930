import LarderCore
import LarderJSON
import LarderRPC

/// `cache.touch`: restarts an entry's lifetime from now (Cashier's refreshValidation).
enum CacheTouch: MethodDefinition {
    static let method = "cache.touch"
    typealias Params = EntryParams

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        guard let cache = try r.server.cache(p.cache, create: false) else { return .result(Result(found: false)) }
        let found = try r.server.core { () throws(StoreError) in try cache.touch(p.key) }
        return .afterCommit(Result(found: found))
    }

    struct Result: MethodResult {
        let found: Bool
        var json: JSON { ["found": .bool(found)] }
    }
}
