import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage
import LarderSystem

/// Single flight across the processes and sidecars on a store (`shared`,
/// SPEC 9.44). The process that misses a key first takes the key's fetch
/// lease (`fetch_leases`, in the write transaction, which every writer on
/// the store takes in turn), asks its client, and gives the lease back in
/// the transaction that stores the value (or when the fetch ends without
/// one). Every other process finds the lease held and does not ask its
/// client: it waits for the value to be stored, and answers it as a hit.
///
/// A waiting process learns of the store's value from what it already
/// notices of other writers' commits (`Store.noticeForeignWrites`), looked
/// at every `lookMilliseconds`: on a store directory, SQLite's WAL index
/// (no system call); on PostgreSQL with `notify`, the notifications that
/// reached the socket (no round trip while none comes); with `strict`, the
/// commit count (a round trip); with `poll`, that at most every 50 ms. It
/// reads the entry and the lease only when a commit may concern the key,
/// or when the holder's lease is due to expire: a holder that died (`kill
/// -9`) renews nothing, and the first waiter to look after the expiry takes
/// the lease and fetches itself, as after a holder that gave the lease back
/// without storing a value.
extension FetchFlights {
    /// A flight waiting for the fetch of its key by another process or sidecar.
    final class ElsewhereWait {
        /// When the wait ends, on the monotonic clock (milliseconds): as long
        /// as the fetch with its retries may take (`FetchSettings.longestFetch`).
        let deadline: Int64
        /// When the holder's lease expires unless renewed, by the store's clock.
        var heldUntil: Int64
        /// Another writer committed something that may concern the key since the last look.
        var news = false
        var timer: TimerID?

        init(deadline: Int64, heldUntil: Int64) {
            self.deadline = deadline
            self.heldUntil = heldUntil
        }
    }

    /// How often a waiting flight looks at what other writers committed: a
    /// value stored elsewhere, or a lease given back or expired, is seen
    /// within this (plus a round trip on PostgreSQL).
    static let lookMilliseconds: Int64 = 10

    /// How long a fetch lease lasts unless renewed: a holder killed mid-fetch
    /// holds up its waiters at most this long. Renewed every third of it
    /// while the fetch is out, so a renewal delayed by a busy writer's lock
    /// (up to 4 s on PostgreSQL) does not let it lapse at the default; half
    /// the longest fetch when that is shorter, so that a waiter's wait
    /// outlasts a dead holder's lease.
    static func leaseMilliseconds(_ settings: FetchSettings) -> Int64 {
        max(30, min(3_000, settings.longestFetch / 2))
    }

    /// What trying for the key's fetch lease came to.
    private enum Turn {
        /// Taken: this process fetches.
        case taken
        /// Another process or sidecar holds it, until then (store's clock).
        case held(until: Int64)
        /// A live entry is there now: the answer.
        case found(JSON)
        /// The cache keeps its entries in this process alone (memory only): fetched as without `shared`.
        case unshared
        case failed(ResponseError)
    }

    /// Takes the key's fetch lease and fetches, or waits for whoever holds it.
    func fetchShared(_ flight: Flight) {
        switch takeTurn(flight) {
        case .taken:
            stopWaiting(flight)
            renewLater(flight)
            attempt(flight)
        case .unshared:
            stopWaiting(flight)
            attempt(flight)
        case .held(let until):
            wait(flight, heldUntil: until)
        case .found(let answer):
            end(flight, .success(answer))
        case .failed(let error):
            // A waiter that could not try for the lease looks again later, within its wait.
            if flight.elsewhere != nil { scheduleLook(flight) } else { end(flight, .failure(error)) }
        }
    }

    /// In one write transaction, which has caught up with every other
    /// writer's commits: a live entry (stored by a fetch elsewhere since the
    /// miss) is the answer; otherwise the lease, unless another holds it.
    private func takeTurn(_ flight: Flight) -> Turn {
        let store = server.store
        let key = flight.key.entry
        store.beginRequest()
        do throws(ResponseError) {
            // Created here if need be: the lease names the cache, as the entry will.
            guard let cache = try server.cache(flight.key.cache, create: true), cache.config.persistent else { return .unshared }
            let ttl = Self.leaseMilliseconds(flight.settings)
            return try server.mappingStoreErrors { () throws(StoreError) -> Turn in
                try store.beginWrite(changing: .entries)
                let now = try cache.get(key, includingExpired: true)
                if let now, !now.expired { return .found(Self.fetchedElsewhere(now)) }
                if let until = try store.takeFetchLease(key, of: cache, ttl: ttl) { return .held(until: until) }
                // This process fetches from here on: what changed while it waited is older than its fetch.
                flight.baseline = now?.entry
                flight.overtaken = false
                flight.changedElsewhere = false
                return .taken
            }
        } catch {
            server.gate.settleFailedRequest()
            return .failed(error)
        }
    }

    /// A hit on a value another process or sidecar fetched and stored.
    private static func fetchedElsewhere(_ found: Cache.Lookup) -> JSON {
        var w = JSONWriter(capacity: found.entry.bytes.count + 160)
        CacheGetOrFetch.Result.writeOpen(found, into: &w)
        w.writeASCII(",\"fetched\":false,\"fetchedElsewhere\":true}")
        return .fragment(JSONFragment(validJSON: w.copiedBytes))
    }

    // MARK: - Holding the lease

    private func renewLater(_ flight: Flight) {
        let every = Int(Self.leaseMilliseconds(flight.settings) / 3)
        flight.leaseRenewal = server.connection.loop.after(milliseconds: every) { [weak self] in self?.renew(flight) }
    }

    private func renew(_ flight: Flight) {
        // At the end of the input the fetch fails at once, and gives the lease back then.
        guard flight.leaseRenewal != nil, inFlight[flight.key] === flight, !server.connection.loop.inputEnded else { return }
        server.store.beginRequest()
        do throws(ResponseError) {
            if let cache = try server.cache(flight.key.cache, create: false) {
                try server.mappingStoreErrors { () throws(StoreError) in
                    try server.store.renewFetchLease(flight.key.entry, of: cache, ttl: Self.leaseMilliseconds(flight.settings))
                }
            }
        } catch {
            // Tried again at the next renewal, before the lease runs out.
            server.gate.settleFailedRequest()
        }
        renewLater(flight)
    }

    /// Gives the lease back, in the transaction that stores the fetched
    /// value if there is one: waiters elsewhere find the value and the
    /// lease gone in the same commit.
    func releaseLease(_ flight: Flight) {
        if let timer = flight.leaseRenewal { server.connection.loop.cancel(timer) }
        flight.leaseRenewal = nil
        server.store.beginRequest()
        do throws(ResponseError) {
            // A cache dropped meanwhile took its key with it; its lease row expires unused.
            guard let cache = try server.cache(flight.key.cache, create: false) else { return }
            try server.mappingStoreErrors { () throws(StoreError) in try server.store.releaseFetchLease(flight.key.entry, of: cache) }
        } catch {
            // The lease then expires by itself.
            server.gate.settleFailedRequest()
        }
    }

    // MARK: - Waiting for a fetch elsewhere

    private func wait(_ flight: Flight, heldUntil: Int64) {
        if let wait = flight.elsewhere {
            wait.heldUntil = heldUntil
        } else {
            let (deadline, overflow) = MonotonicClock.milliseconds().addingReportingOverflow(flight.settings.longestFetch)
            flight.elsewhere = ElsewhereWait(deadline: overflow ? .max : deadline, heldUntil: heldUntil)
        }
        scheduleLook(flight)
    }

    private func scheduleLook(_ flight: Flight) {
        guard let wait = flight.elsewhere else { return }
        let after = max(0, min(Self.lookMilliseconds, wait.deadline - MonotonicClock.milliseconds()))
        wait.timer = server.connection.loop.after(milliseconds: Int(after)) { [weak self] in self?.look(flight) }
    }

    private func stopWaiting(_ flight: Flight) {
        if let timer = flight.elsewhere?.timer { server.connection.loop.cancel(timer) }
        flight.elsewhere = nil
    }

    private func look(_ flight: Flight) {
        guard let wait = flight.elsewhere, inFlight[flight.key] === flight else { return }
        wait.timer = nil
        // As a fetch under way when the input ends: failed at once.
        if server.connection.loop.inputEnded {
            return giveUp(flight, ResponseError(code: .requestCancelled, message: "the client closed the connection"))
        }
        do { try server.store.noticeForeignWrites() } catch { Log.warn("checking for other writers failed: \(error)") }
        let due = MonotonicClock.milliseconds() >= wait.deadline
        guard wait.news || due || server.store.clock.now >= wait.heldUntil else { return scheduleLook(flight) }
        wait.news = false
        let cache: Cache?
        server.store.beginRequest()
        do throws(ResponseError) {
            cache = try server.cache(flight.key.cache, create: false)
            let key = flight.key.entry
            let heldUntil = try server.mappingStoreErrors { () throws(StoreError) -> Int64? in
                guard let cache else { return nil }
                if let now = try cache.get(key), !now.expired {
                    end(flight, .success(Self.fetchedElsewhere(now)))
                    return nil
                }
                return try server.store.fetchLeaseHeldElsewhere(key, of: cache)
            }
            guard flight.elsewhere != nil else { return }
            if let heldUntil {
                wait.heldUntil = heldUntil
                if !due { return scheduleLook(flight) }
                return giveUp(flight, ResponseError(code: .requestCancelled, message:
                    "no value was stored within \(flight.settings.longestFetch) ms by the fetch of this key under way elsewhere"))
            }
        } catch {
            server.gate.settleFailedRequest()
            if !due { return scheduleLook(flight) }
            return giveUp(flight, error)
        }
        // Given back without a value, or expired with its holder: this process tries to fetch.
        fetchShared(flight)
    }

    /// The wait ended without a value: a failed fetch of no attempts of
    /// this process's own (its fallback, if the client has one).
    private func giveUp(_ flight: Flight, _ error: ResponseError) {
        stopWaiting(flight)
        inFlight[flight.key] = nil
        finish(flight.waiters, key: flight.key, outcome: .failed(error), attempts: 0, settings: flight.settings,
               store: (flight.baseline, flight.overtaken, flight.changedElsewhere))
    }

    /// Answers every request waiting for the flight with `result`.
    private func end(_ flight: Flight, _ result: Result<JSON, ResponseError>) {
        stopWaiting(flight)
        if inFlight[flight.key] === flight { inFlight[flight.key] = nil }
        for w in flight.waiters { server.gate.answer(w, result, after: .commit) }
    }
}
