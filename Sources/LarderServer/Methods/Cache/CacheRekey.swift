import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// `cache.rekey`: re-seals an encrypted cache's entries under a new key, a
/// batch per transaction, with `$/progress` between batches (the work
/// itself: `RekeyJob`). The session must hold the cache's current key; from
/// the answer on it uses the new one for that cache.
enum CacheRekey: MethodDefinition {
    static let method = "cache.rekey"

    struct Params: ParamsObject {
        static let members = ["cache", "key", "batchSize", "workDoneToken"]
        static let requiredMembers = ["cache", "key"]
        let cache: String
        let key: EncryptionKey
        var batchSize = 500
        /// Where `$/progress` reports go; none without it.
        var token: JSON?

        init(_ p: ParamsReader) throws(ResponseError) {
            guard p.contains("cache") else { throw .invalidParams("missing required parameter \(p.path).cache (string)") }
            cache = try p.cacheName()
            key = try EncryptionKey(base64: try p.require("key", as: String.self), at: "\(p.path).key")
            batchSize = try p.optional("batchSize", as: Int.self) ?? 500
            guard batchSize >= 1 && batchSize <= 100_000 else {
                throw .invalidParams("\(p.path).batchSize must be between 1 and 100000")
            }
            token = p["workDoneToken"]
            if let token, token.stringValue == nil && token.numberValue == nil {
                throw .invalidParams("\(p.path).workDoneToken must be a string or a number")
            }
        }
    }

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        let server = r.server
        guard let cache = try server.cache(p.cache, create: false) else {
            throw StoreError.cacheNotFound(p.cache).responseError
        }
        let rekey = try server.mappingStoreErrors { () throws(StoreError) in try cache.beginRekey(to: p.key) }
        RekeyJob(server: server, reply: r.reply, rekey: rekey, options: p).start()
        return .deferred
    }

    struct Result: MethodResult {
        let cache: String
        /// Entries re-sealed by this call.
        let resealed: Int
        /// It finished a rekey that had stopped part-way.
        let resumed: Bool
        var json: JSON { ["cache": .string(cache), "resealed": .int(resealed), "resumed": .bool(resumed)] }
    }
}
