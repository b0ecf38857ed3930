import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// The misses of `cache.getOrFetch`, each asked of the client once however
/// many requests wait for it (single flight), with retries, a timeout per
/// attempt, the client's fallback and the failures it remembers.
///
/// The client is asked with the server-to-client request `cache.fetch`,
/// like `migrate.object`: nothing waits in the server, the answer arrives as
/// a message, and every other request is served meanwhile. What a fetch
/// brings is stored only if nothing wrote or removed the key since the fetch
/// began, here or in another process: a write made during the fetch is newer
/// than what the fetch was asked for. A write is seen by comparing the entry
/// with the one the fetch began with; a removal, which leaves nothing to
/// compare, is published by the store (`Store.onEntryChange`) whichever
/// request or process made it.
///
/// With `shared`, a fetch is single across the processes and sidecars on
/// the store too: see `FetchFlights+Shared.swift`.
final class FetchFlights {
    unowned let server: Server
    /// The client answers `cache.fetch` / `cache.fallback` (`initialize` capabilities).
    var clientFetches = false
    var clientFallsBack = false

    struct Key: Hashable {
        let cache: String
        let entry: EntryKey
    }

    /// What an attempt, or a whole fetch, came to.
    enum Outcome {
        case value(kind: Entry.Kind, bytes: [UInt8], ttl: Int64?)
        case notFound
        case failed(ResponseError)
    }

    /// A fetch under way and the requests waiting for it.
    final class Flight {
        let key: Key
        let settings: FetchSettings
        /// The entry under the key when the fetch began (an expired one, or none).
        var baseline: Entry?
        var waiters: [Reply] = []
        var attempts = 0
        /// Something removed the key, or cleared or dropped its cache, while
        /// the fetch ran: here, or another writer that said which entries it changed.
        var overtaken = false
        /// Another writer committed without saying what it changed: whether
        /// it removed the entry the fetch began with is told by comparing.
        var changedElsewhere = false
        /// Shared: this process holds the key's fetch lease, renewed by this timer while the fetch is out.
        var leaseRenewal: TimerID?
        /// Shared: another process or sidecar holds the key's fetch lease, and this flight waits for what it stores.
        var elsewhere: ElsewhereWait?

        init(key: Key, settings: FetchSettings, baseline: Entry?) {
            self.key = key
            self.settings = settings
            self.baseline = baseline
        }
    }

    var inFlight: [Key: Flight] = [:]
    /// Fetches that failed or found nothing, remembered for their `negativeTtl`
    /// (until a moment of the store's clock).
    private var remembered: [Key: (until: Int64, outcome: Outcome)] = [:]

    init(server: Server) {
        self.server = server
    }

    /// Whether a fetch of `key` is under way.
    func isFetching(_ key: Key) -> Bool { inFlight[key] != nil }

    /// What a recent fetch of `key` came to, if it failed or found nothing and is still remembered.
    func remembered(_ key: Key) -> Outcome? {
        guard let r = remembered[key] else { return nil }
        guard server.store.clock.now < r.until else {
            remembered[key] = nil
            return nil
        }
        return r.outcome
    }

    /// Answers `reply` with the outcome of the fetch of `key`, starting one if none is under way.
    func join(_ reply: Reply?, key: Key, settings: FetchSettings, baseline: Entry?) {
        if let flight = inFlight[key] {
            if let reply { flight.waiters.append(reply) }
            return
        }
        let flight = Flight(key: key, settings: settings, baseline: baseline)
        if let reply { flight.waiters.append(reply) }
        inFlight[key] = flight
        if settings.shared && server.store.isPersistent { fetchShared(flight) } else { attempt(flight) }
    }

    /// At most this many outcomes are remembered: past it, the expired ones
    /// go, and if that is not enough, the ones that expire soonest.
    static let maxRemembered = 10_000

    private func remember(_ key: Key, _ outcome: Outcome, for milliseconds: Int64) {
        let now = server.store.clock.now
        if remembered.count >= Self.maxRemembered {
            remembered = remembered.filter { $0.value.until > now }
            if remembered.count >= Self.maxRemembered {
                let keep = remembered.sorted { $0.value.until > $1.value.until }.prefix(Self.maxRemembered / 2)
                remembered = Dictionary(uniqueKeysWithValues: keep.map { ($0.key, $0.value) })
            }
        }
        remembered[key] = (now + milliseconds, outcome)
    }

    /// A removal overtakes the fetches of what it removed and forgets their
    /// remembered outcomes; a cache cleared or dropped, every fetch into it.
    func entriesChanged(_ change: EntryChange) {
        guard !inFlight.isEmpty || !remembered.isEmpty else { return }
        switch change {
        case .removed(let cache, let key):
            let k = Key(cache: cache, entry: key)
            inFlight[k]?.overtaken = true
            remembered[k] = nil
        case .changedElsewhere(let cache, let key?):
            let k = Key(cache: cache, entry: key)
            if let flight = inFlight[k] {
                if let wait = flight.elsewhere { wait.news = true } else { flight.overtaken = true }
            }
            remembered[k] = nil
        case .cleared(let cache):
            for (key, flight) in inFlight where key.cache == cache { flight.overtaken = true }
            remembered = remembered.filter { $0.key.cache != cache }
        case .changedElsewhere(let cache, nil):
            for (key, flight) in inFlight where key.cache == cache {
                if let wait = flight.elsewhere { wait.news = true } else { flight.overtaken = true }
            }
            remembered = remembered.filter { $0.key.cache != cache }
        case .anythingChangedElsewhere:
            for flight in inFlight.values {
                if let wait = flight.elsewhere { wait.news = true } else { flight.changedElsewhere = true }
            }
        }
    }

    // MARK: - Asking the client

    func attempt(_ flight: Flight) {
        flight.attempts += 1
        let connection = server.connection
        let key = flight.key
        var answered = false
        var timer: TimerID?
        let id = connection.send(CacheFetch.self, .init(cache: key.cache, entry: key.entry, attempt: flight.attempts)) { [weak self] response in
            guard !answered else { return }
            answered = true
            if let timer { connection.loop.cancel(timer) }
            self?.attempted(flight, Self.outcome(of: response))
        }
        guard !answered else { return }
        timer = connection.loop.after(milliseconds: Int(flight.settings.timeout)) { [weak self] in
            guard !answered else { return }
            answered = true
            connection.abandon(id)
            self?.attempted(flight, .failed(ResponseError(code: .requestCancelled,
                message: "no answer to cache.fetch within \(flight.settings.timeout) ms")))
        }
    }

    private func attempted(_ flight: Flight, _ outcome: Outcome) {
        if case .failed = outcome, flight.attempts <= flight.settings.retries, !server.connection.loop.inputEnded {
            let delay = flight.settings.retryDelay(before: flight.attempts, random: Double.random(in: 0..<1))
            server.connection.loop.after(milliseconds: Int(delay)) { [weak self] in self?.attempt(flight) }
            return
        }
        if case .value = outcome { catchUpWithOtherWriters() }
        inFlight[flight.key] = nil
        if flight.leaseRenewal != nil { releaseLease(flight) }
        if flight.settings.negativeTtl > 0, !flight.overtaken {
            switch outcome {
            case .notFound, .failed: remember(flight.key, outcome, for: flight.settings.negativeTtl)
            case .value: break
            }
        }
        finish(flight.waiters, key: flight.key, outcome: outcome, attempts: flight.attempts,
               settings: flight.settings, store: (flight.baseline, flight.overtaken, flight.changedElsewhere))
    }

    /// A value is compared and stored in one write transaction: opening it
    /// catches up with other writers' commits, which may overtake the fetch
    /// (`entriesChanged`, while it is still in flight), and none lands
    /// before it commits. Opening it may fail: storing then fails alike.
    private func catchUpWithOtherWriters() {
        guard server.store.isPersistent else { return }
        server.store.beginRequest()
        do {
            try server.mappingStoreErrors { () throws(StoreError) in try server.store.beginWrite(changing: .entries) }
        } catch {
            server.gate.settleFailedRequest()
        }
    }

    /// Answers the waiters: stores a value first (unless a write overtook
    /// the fetch), or asks for the fallback when every attempt failed.
    /// `store` is nil for a remembered outcome, which is never stored.
    func finish(_ waiters: [Reply], key: Key, outcome: Outcome, attempts: Int, settings: FetchSettings,
                store: (baseline: Entry?, overtaken: Bool, changedElsewhere: Bool)?) {
        switch outcome {
        case .value(let kind, let bytes, let ttl):
            let result: Result<JSON, ResponseError>
            server.store.beginRequest()
            do throws(ResponseError) {
                result = .success(try stored(kind: kind, bytes: bytes, ttl: ttl ?? settings.ttl, key: key,
                                             attempts: attempts, since: store ?? (nil, true, false)))
            } catch {
                server.gate.settleFailedRequest()
                result = .failure(error)
            }
            for w in waiters { server.gate.answer(w, result, after: .commit) }
        case .notFound:
            var o: JSONObject = ["found": false, "fetched": .bool(store != nil), "attempts": .int(attempts)]
            if store == nil { o.append("remembered", true) }
            for w in waiters { server.gate.answer(w, .success(.object(o)), after: .commit) }
        case .failed(let error):
            guard clientFallsBack, !waiters.isEmpty else {
                let failure = Self.fetchFailed(error, attempts: attempts, remembered: store == nil)
                for w in waiters { server.gate.answer(w, .failure(failure), after: .commit) }
                return
            }
            server.connection.send(CacheFallback.self, .init(cache: key.cache, entry: key.entry, error: error)) { [weak self] response in
                guard let self else { return }
                let result: Result<JSON, ResponseError>
                switch Self.outcome(of: response) {
                case .value(let kind, let bytes, _):
                    result = .success(Self.fallbackResult(kind: kind, bytes: bytes, attempts: attempts))
                case .notFound:
                    result = .success(["found": false, "fallback": true, "fetched": false, "attempts": .int(attempts)])
                case .failed(let fallbackError):
                    result = .failure(Self.fetchFailed(error, attempts: attempts, remembered: store == nil,
                                                       fallbackError: fallbackError))
                }
                for w in waiters { self.server.gate.answer(w, result, after: .commit) }
            }
        }
    }

    /// Stores a fetched value, unless something wrote or removed the key
    /// since the fetch began, and returns the answer: the entry as
    /// `cache.get` shows it, with `fetched`, `attempts` and `stored`.
    private func stored(kind: Entry.Kind, bytes: [UInt8], ttl: Int64?, key: Key, attempts: Int,
                        since fetch: (baseline: Entry?, overtaken: Bool, changedElsewhere: Bool)) throws(ResponseError) -> JSON {
        let cache = try server.cache(key.cache, create: true)!
        var overtaken = fetch.overtaken
        if !overtaken {
            switch (fetch.baseline, try server.mappingStoreErrors({ () throws(StoreError) in try cache.current(key.entry) })?.entry) {
            case (let before?, let now?):
                // An entry that is not the one the fetch began with was written meanwhile.
                overtaken = !(before.storedAt == now.storedAt && before.validatedAt == now.validatedAt && before.bytes == now.bytes)
            case (nil, _?):
                overtaken = true
            case (_?, nil):
                // Gone: removed by another process on a store directory, or
                // evicted or purged (here or there), which cannot be told apart
                // when that process's commit said only that something changed.
                overtaken = fetch.changedElsewhere
            case (nil, nil):
                break
            }
        }
        // A cache claimed by another app version's process meanwhile takes no write of this one (SPEC 6.9).
        if cache.isSuperseded { overtaken = true }
        var w = JSONWriter(capacity: bytes.count + 160)
        if overtaken {
            w.writeASCII("{\"found\":true,")
            CacheGet.writeValue(kind: kind, bytes: bytes, into: &w)
            w.writeASCII(",\"fetched\":true,\"stored\":false,\"attempts\":")
        } else {
            try server.mappingStoreErrors { () throws(StoreError) in try cache.set(Cache.Write(key: key.entry, kind: kind, bytes: bytes, ttl: ttl)) }
            guard let entry = try server.mappingStoreErrors({ () throws(StoreError) in try cache.current(key.entry) }) else {
                throw .internalError("a fetched entry was not found right after it was stored")
            }
            CacheGetOrFetch.Result.writeOpen(entry, into: &w)
            w.writeASCII(",\"fetched\":true,\"stored\":true,\"attempts\":")
        }
        w.writeInt(attempts)
        w.writeASCII("}")
        return .fragment(JSONFragment(validJSON: w.copiedBytes))
    }

    private static func fallbackResult(kind: Entry.Kind, bytes: [UInt8], attempts: Int) -> JSON {
        var w = JSONWriter(capacity: bytes.count + 96)
        w.writeASCII("{\"found\":true,")
        CacheGet.writeValue(kind: kind, bytes: bytes, into: &w)
        w.writeASCII(",\"fallback\":true,\"fetched\":false,\"attempts\":")
        w.writeInt(attempts)
        w.writeASCII("}")
        return .fragment(JSONFragment(validJSON: w.copiedBytes))
    }

    static func fetchFailed(_ last: ResponseError, attempts: Int, remembered: Bool,
                            fallbackError: ResponseError? = nil) -> ResponseError {
        var data: JSONObject = ["attempts": .int(attempts), "lastError": last.json]
        if remembered { data.append("remembered", true) }
        if let fallbackError { data.append("fallbackError", fallbackError.json) }
        let what = remembered ? "a fetch failed recently and is not tried again yet"
                              : "fetching failed after \(attempts) attempt\(attempts == 1 ? "" : "s")"
        return ResponseError(code: .fetchFailed, message: "\(what): \(last.message.echoed)", data: .object(data))
    }

    /// What the client's answer to `cache.fetch` or `cache.fallback` comes to.
    static func outcome(of response: Result<FetchAnswer, ResponseError>) -> Outcome {
        switch response {
        case .failure(let error): return .failed(error)
        case .success(let answer):
            switch answer.found {
            case .value(let kind, let bytes, let ttl): return .value(kind: kind, bytes: bytes, ttl: ttl)
            case .notFound: return .notFound
            }
        }
    }
}
