import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// `store.clear`: removes every entry, only the objects (HMCache's
/// `+clearCache`) or only the plain entries, from every cache of the store;
/// durable stores only when asked. Definitions and entity records stay.
enum StoreClear: MethodDefinition {
    static let method = "store.clear"

    struct Params: ParamsObject {
        static let members = ["kind", "includeStores"]
        let entries: ClearedEntries
        /// Clear durable stores (`cache.open {kind: "store"}`) too.
        let includeStores: Bool

        init(_ p: ParamsReader) throws(ResponseError) {
            let kind = try p.optional("kind", as: String.self) ?? "all"
            guard let entries = StoreClear.entries(named: kind) else {
                throw .invalidParams("\(p.path).kind must be \"all\", \"objects\" or \"caches\", not \"\(kind.echoed)\"")
            }
            self.entries = entries
            includeStores = try p.optional("includeStores", as: Bool.self) ?? false
        }
    }

    /// The protocol's name for which entries are cleared, in params and in `cache.cleared`.
    static func name(of entries: ClearedEntries) -> String {
        switch entries {
        case .all: return "all"
        case .objects: return "objects"
        case .plain: return "caches"
        }
    }

    static func entries(named name: String) -> ClearedEntries? {
        [ClearedEntries.all, .objects, .plain].first { Self.name(of: $0) == name }
    }

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        let server = r.server
        let removed = try server.mappingStoreErrors { () throws(StoreError) in try server.store.clear(p.entries, includingStores: p.includeStores) }
        return .afterCommit(Result(caches: removed.filter { $0.removed > 0 }))
    }

    struct Result: MethodResult {
        /// Each cache that lost entries, by name, and how many.
        let caches: [(cache: String, removed: Int)]

        var json: JSON {
            ["removed": .int(caches.reduce(0) { $0 + $1.removed }),
             "caches": .array(caches.map { ["cache": .string($0.cache), "removed": .int($0.removed)] })]
        }
    }
}
