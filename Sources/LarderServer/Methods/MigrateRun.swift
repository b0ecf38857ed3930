import LarderCore
import LarderJSON
import LarderRPC

/// `migrate.run`: migrates every stored object that is behind, in batches (one
/// transaction each), with `$/progress` and cancellation between batches.
enum MigrateRun: MethodHandler {
    static let method = "migrate.run"

    static func handle(_ r: Request) throws(ResponseError) -> Response {
        let p = r.params
        var options = MigrationRun.Options()
        options.type = try p.optional("type", as: String.self)
        options.dryRun = try p.optional("dryRun", as: Bool.self) ?? false
        options.batchSize = try p.optional("batchSize", as: Int.self) ?? 500
        guard options.batchSize >= 1 && options.batchSize <= 100_000 else {
            throw .invalidParams("params.batchSize must be between 1 and 100000")
        }
        switch try p.optional("onFailure", as: String.self) ?? "keep" {
        case "keep": options.dropFailures = false
        case "drop": options.dropFailures = true
        case let other: throw .invalidParams("params.onFailure must be \"keep\" or \"drop\", not \"\(other)\"")
        }
        options.token = p["workDoneToken"]
        if let token = options.token, token.stringValue == nil && token.numberValue == nil {
            throw .invalidParams("params.workDoneToken must be a string or a number")
        }
        let server = r.server
        let caches: [Cache]
        if p.contains("cache") {
            caches = try server.cache(r, create: false).map { [$0] } ?? []
        } else {
            caches = try server.core { () throws(StoreError) in try server.store.allCaches() }
        }
        let run = MigrationRun(server: server, reply: r.reply, caches: caches, options: options)
        try server.core { () throws(StoreError) in try run.start() }
        return .deferred
    }
}
