import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// `cache.getOrFetch`: a get that, on a miss, asks the client for the value
/// (`cache.fetch`), stores it and answers with it (see `FetchFlights`).
enum CacheGetOrFetch: MethodDefinition {
    static let methodName: StaticString = "cache.getOrFetch"
    static let method = methodName.description

    struct Params: ParamsObject {
        static let members = ["cache", "group", "key"] + FetchParams.members
        static let requiredMembers = ["key"]
        let cache: String
        let key: EntryKey
        /// This call's own settings, over the cache's.
        let overrides: FetchSettings.Change

        init(_ p: ParamsReader) throws(ResponseError) {
            key = try p.entryKey()
            cache = try p.cacheName()
            overrides = try FetchParams.change(p)
        }
    }

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        let server = r.server, flights = server.flights
        let cache = try server.cache(p.cache, create: false)
        let settings = p.overrides.applied(to: cache?.config.fetch ?? FetchSettings())
        let found = try server.mappingStoreErrors { () throws(StoreError) in try cache?.get(p.key, includingExpired: true) }
        let key = FetchFlights.Key(cache: p.cache, entry: p.key)
        if let found, !found.expired || (cache?.config.returnsExpired == true && settings.staleWhileRevalidate == 0) {
            return .result(Result(found))
        }
        guard flights.clientFetches else {
            let why = "the client did not declare capabilities.fetch in initialize, so it cannot be asked for a missing key"
            throw ResponseError(code: .fetchFailed, message: "cannot fetch: \(why)",
                                data: ["attempts": 0, "lastError": ResponseError(code: .requestFailed, message: why).json])
        }
        // Expired by less than `staleWhileRevalidate`: answered as it is while one fetch refreshes it.
        if let found, let expiresAt = found.expiresAt, server.store.clock.now - expiresAt < settings.staleWhileRevalidate {
            let refreshing = !flights.isFetching(key) && flights.remembered(key) == nil
            if refreshing { flights.join(nil, key: key, settings: settings, baseline: found.entry) }
            return .result(Result(found, revalidating: flights.isFetching(key)))
        }
        if let outcome = flights.remembered(key) {
            flights.finish([r.reply], key: key, outcome: outcome, attempts: 0, settings: settings, store: nil)
        } else {
            flights.join(r.reply, key: key, settings: settings, baseline: found?.entry)
        }
        return .deferred
    }

    /// A found entry as `cache.get` shows it, with the members of a fetch.
    struct Result: MethodResult {
        let json: JSON

        /// A hit; `revalidating` for a stale entry answered while it is refreshed.
        init(_ found: Cache.Lookup, revalidating: Bool? = nil) {
            var w = JSONWriter(capacity: found.entry.bytes.count + 160)
            if let revalidating {
                Self.writeOpen(found, into: &w)
                w.writeASCII(revalidating ? ",\"fetched\":false,\"revalidating\":true}" : ",\"fetched\":false,\"revalidating\":false}")
            } else {
                Self.write(found, into: &w)
            }
            json = .fragment(JSONFragment(validJSON: w.copiedBytes))
        }

        /// A hit, written straight into the output (both paths).
        static func write(_ found: Cache.Lookup, into w: inout JSONWriter) {
            writeOpen(found, into: &w)
            w.writeASCII(",\"fetched\":false}")
        }

        /// The entry as `cache.get` writes it, its object left open for the
        /// members that follow.
        static func writeOpen(_ found: Cache.Lookup, into w: inout JSONWriter) {
            CacheGet.write(found, into: &w)
            w.truncate(to: w.count - 1)
        }
    }
}

/// The settings of a fetch, as `cache.open`'s `fetch` member names them and
/// as `cache.getOrFetch` overrides them for one call.
struct FetchParams: ParamsObject {
    static let members = ["retries", "retryDelayMs", "timeoutMs", "ttl", "negativeTtl", "staleWhileRevalidate", "shared"]
    let change: FetchSettings.Change

    init(_ p: ParamsReader) throws(ResponseError) {
        change = try Self.change(p)
    }

    /// Reads the members present in `p` (which may have others: `cache.getOrFetch`'s own).
    static func change(_ p: ParamsReader) throws(ResponseError) -> FetchSettings.Change {
        var c = FetchSettings.Change()
        if let n = try p.optional("retries", as: Int.self) {
            guard n >= 0 && n <= FetchSettings.maxRetries else {
                throw .invalidParams("\(p.path).retries must be between 0 and \(FetchSettings.maxRetries)")
            }
            c.retries = n
        }
        if let delay = try p.optional("retryDelayMs", as: [Int].self) {
            guard delay.count == 2, delay[0] >= 0, delay[0] <= delay[1], Int64(delay[1]) <= FetchSettings.maxMilliseconds else {
                throw .invalidParams("\(p.path).retryDelayMs must be [base, max] in milliseconds, 0 ≤ base ≤ max ≤ \(FetchSettings.maxMilliseconds)")
            }
            c.retryDelay = (Int64(delay[0]), Int64(delay[1]))
        }
        if let t = try p.optional("timeoutMs", as: Int.self) {
            guard t >= 1 && Int64(t) <= FetchSettings.maxMilliseconds else {
                throw .invalidParams("\(p.path).timeoutMs must be between 1 and \(FetchSettings.maxMilliseconds)")
            }
            c.timeout = Int64(t)
        }
        // null is a value here: back to the cache's lifespan.
        if p.object["ttl"] != nil { c.ttl = .some(try p.milliseconds("ttl")) }
        c.negativeTtl = try p.milliseconds("negativeTtl")
        c.staleWhileRevalidate = try p.milliseconds("staleWhileRevalidate")
        c.shared = try p.optional("shared", as: Bool.self)
        return c
    }
}
