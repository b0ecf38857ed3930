import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// `cache.getMany`: several keys at once, as a map from key to what `cache.get` answers.
enum CacheGetMany: MethodDefinition {
    static let method = "cache.getMany"

    struct Params: ParamsObject {
        static let members = ["cache", "group", "keys"]
        static let requiredMembers = ["keys"]
        let cache: String
        let group: String
        let keys: [String]

        init(_ p: ParamsReader) throws(ResponseError) {
            keys = try p.require("keys", as: [String].self)
            group = try p.group()
            for (i, k) in keys.enumerated() { _ = try p.nonEmptyKey(k, at: "\(p.path).keys[\(i)]") }
            cache = try p.cacheName()
        }
    }

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        let store = r.server.store
        var entries = JSONObject()
        // Keys are compared byte for byte, as everywhere else: "é" and "e\u{301}"
        // are two keys (String's == would take them for one).
        var seen = Set<[UInt8]>()
        for k in p.keys where seen.insert(Array(k.utf8)).inserted {
            var w = JSONWriter(capacity: 256)
            try r.server.mappingStoreErrors { () throws(StoreError) in
                try UTF8Text.with(p.cache, p.group, k) { (cache, group, key) throws(StoreError) in
                    try CacheGet.lookup(in: store, cache: cache, group: group, key: key, into: &w)
                }
            }
            entries.append(k, .fragment(JSONFragment(validJSON: w.copiedBytes)))
        }
        return .result(Result(entries: entries))
    }

    struct Result: MethodResult {
        /// Each distinct key asked for, in the order first asked, with what `cache.get` answers for it.
        let entries: JSONObject
        var json: JSON { ["entries": .object(entries)] }
    }
}
