import LarderRPC

/// Every method the server answers, alphabetized. Adding a method means adding
/// its type here (and to SPEC.md, openrpc.json, a transcript and the clients).
enum MethodTable {
    static let all: [any MethodHandler.Type] = [
        CacheClear.self,
        CacheDrop.self,
        CacheGet.self,
        CacheGetMany.self,
        CacheHas.self,
        CacheKeys.self,
        CacheList.self,
        CacheOpen.self,
        CachePurgeExpired.self,
        CacheRemove.self,
        CacheSet.self,
        CacheSetMany.self,
        CacheStatsMethod.self,
        CacheSubscribe.self,
        CacheTouch.self,
        DebugAdvanceClock.self,
        DebugAsk.self,
        EntityApply.self,
        EntityCount.self,
        EntityDefine.self,
        EntityDelete.self,
        EntityDiscard.self,
        EntityGet.self,
        EntityGetMany.self,
        EntityModels.self,
        EntityQueryMethod.self,
        EntityStage.self,
        EntityUpsert.self,
        Initialize.self,
        MigrateRun.self,
        ObjectCopy.self,
        ObjectDescribe.self,
        ObjectEquals.self,
        ObjectGet.self,
        ObjectHash.self,
        ObjectPut.self,
        RpcDiscover.self,
        SchemaExtend.self,
        SchemaGet.self,
        SchemaList.self,
        SchemaRegister.self,
        SchemaRemove.self,
        Shutdown.self,
    ]

    struct Entry: Sendable {
        let isTestOnly: Bool
        let handle: @Sendable (Request) throws(ResponseError) -> Response
    }

    static let byName: [String: Entry] = {
        var table: [String: Entry] = [:]
        for m in all {
            table[m.method] = Entry(isTestOnly: m.isTestOnly, handle: { (r) throws(ResponseError) in try m.handle(r) })
        }
        return table
    }()
}
