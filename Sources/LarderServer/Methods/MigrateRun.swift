import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// `migrate.run`: migrates every stored object that is behind, in batches (one
/// transaction each), with `$/progress` and cancellation between batches
/// (the work itself: `MigrationJob`).
enum MigrateRun: MethodDefinition {
    static let method = "migrate.run"

    struct Params: ParamsObject {
        static let members = ["cache", "type", "dryRun", "batchSize", "onFailure", "workDoneToken"]
        /// Nil: every cache.
        var cache: String?
        /// Nil: objects of every type.
        var type: String?
        var dryRun = false
        var batchSize = 500
        /// Delete objects whose migration fails (`onFailure: "drop"`) instead of keeping them.
        var dropFailures = false
        /// Where `$/progress` reports go; none without it.
        var token: JSON?

        init(_ p: ParamsReader) throws(ResponseError) {
            type = try p.optional("type", as: String.self)
            dryRun = try p.optional("dryRun", as: Bool.self) ?? false
            batchSize = try p.optional("batchSize", as: Int.self) ?? 500
            guard batchSize >= 1 && batchSize <= 100_000 else {
                throw .invalidParams("\(p.path).batchSize must be between 1 and 100000")
            }
            switch try p.optional("onFailure", as: String.self) ?? "keep" {
            case "keep": dropFailures = false
            case "drop": dropFailures = true
            case let other: throw .invalidParams("\(p.path).onFailure must be \"keep\" or \"drop\", not \"\(other.echoed)\"")
            }
            token = p["workDoneToken"]
            if let token, token.stringValue == nil && token.numberValue == nil {
                throw .invalidParams("\(p.path).workDoneToken must be a string or a number")
            }
            cache = p.contains("cache") ? try p.cacheName() : nil
        }
    }

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        let server = r.server
        let caches: [Cache]
        if let name = p.cache {
            caches = try server.cache(name, create: false).map { [$0] } ?? []
        } else {
            caches = try server.mappingStoreErrors { () throws(StoreError) in try server.store.allCaches() }
        }
        let job = MigrationJob(server: server, reply: r.reply, caches: caches, options: p)
        try server.mappingStoreErrors { () throws(StoreError) in try job.start() }
        return .deferred
    }

    /// What the run did, answered at the end (or as a cancellation's `data`).
    struct Result: MethodResult {
        /// Objects of the requested type looked at.
        var examined = 0
        var migrated = 0
        var upToDate = 0
        var failed = 0
        var dropped = 0
        /// The first thousand failures, each with the key and the error.
        var failures: [JSON] = []

        var json: JSON {
            ["examined": .int(examined), "migrated": .int(migrated), "upToDate": .int(upToDate), "failed": .int(failed),
             "dropped": .int(dropped), "failures": .array(failures)]
        }
    }
}
