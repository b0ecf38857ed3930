import LarderCore
import LarderJSON
import LarderRPC

/// Every method the server answers, and every request and notification it
/// sends. Adding a method means adding its type here (and to SPEC.md,
/// openrpc.json, a transcript and the clients); a message the server sends,
/// likewise (openrpc.json's `x-server-requests` or `x-notifications`, SPEC.md
/// and the clients' types).
enum MethodTable {
    /// In the order `initialize` lists them (`capabilities.methods`), which
    /// clients see: by name, but for `cache.getOrFetch` before `cache.getMany`
    /// and `cache.rekey` before `cache.purgeExpired`, as they were first listed.
    static let all: [any MethodDefinition.Type] = [
        CacheClear.self,
        CacheDrop.self,
        CacheGet.self,
        CacheGetOrFetch.self,
        CacheGetMany.self,
        CacheGroups.self,
        CacheHas.self,
        CacheIncrement.self,
        CacheKeys.self,
        CacheList.self,
        CacheOpen.self,
        CacheRekey.self,
        CachePurgeExpired.self,
        CacheRemove.self,
        CacheSet.self,
        CacheSetMany.self,
        CacheStats.self,
        CacheSubscribe.self,
        CacheTouch.self,
        CacheTransaction.self,
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
        EntityParse.self,
        EntityQuery.self,
        EntityRender.self,
        EntityStage.self,
        EntityUpsert.self,
        Initialize.self,
        LockAcquire.self,
        LockList.self,
        LockRelease.self,
        LockRenew.self,
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
        StoreClear.self,
    ]

    /// Every request the server sends to the client, by name.
    static let serverRequests: [any ServerRequestDefinition.Type] = [
        CacheFallback.self,
        CacheFetch.self,
        MigrateObject.self,
    ]

    /// Every notification the server sends, by name.
    static let notifications: [any NotificationDefinition.Type] = [
        CancelRequestNotification.self,
        WorkDoneProgress.self,
        CacheCleared.self,
        CacheEvicted.self,
        CacheRemoved.self,
    ]

    /// What the server needs of a method, its types erased.
    struct Entry: Sendable {
        let isTestOnly: Bool
        let handle: @Sendable (JSON?, Request) throws(ResponseError) -> Outcome
    }

    /// A handler's `Response`, its result encoded.
    enum Outcome {
        case result(JSON)
        case afterCommit(JSON)
        case deferred
        case afterDecided(PendingWrite, (PendingWrite.Written) -> JSON)
    }

    static let byName: [String: Entry] = {
        var table: [String: Entry] = [:]
        for m in all { table[m.method] = entry(for: m) }
        return table
    }()

    private static func entry<M: MethodDefinition>(for m: M.Type) -> Entry {
        Entry(isTestOnly: m.isTestOnly, handle: { (params, r) throws(ResponseError) in
            switch try M.handle(try M.Params.decode(ParamsReader(params)), r) {
            case .result(let result): return .result(result.json)
            case .afterCommit(let result): return .afterCommit(result.json)
            case .deferred: return .deferred
            case .afterDecided(let write, let result): return .afterDecided(write, { result($0).json })
            }
        })
    }

    /// The names a client may call, for suggestions when a name is misspelt.
    static func names(includingTestOnly: Bool) -> [String] {
        all.filter { includingTestOnly || !$0.isTestOnly }.map { $0.method }
    }
}
