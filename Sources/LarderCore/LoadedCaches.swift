/// The caches this process has loaded, by name and by id, and how what they
/// hold follows the store's transactions without each being told: told one
/// by one, 44,000 loaded caches made every request take about 130 ms (each
/// commit, even the empty one after a burst of reads, called every cache)
/// and each cache created slower than the last.
///
/// A commit tells no cache anything: a cache writes nothing at a commit and
/// forgets nothing after one. A rollback, or another writer's commit that
/// may have changed anything, moves its generation on; each cache compares it
/// with its own before its next use (`Cache.isStale`), and reads itself
/// again then, so that a rollback reaches every cache that changed in the
/// transaction whichever path changed it. Another writer's commit that
/// names the entries it changed reaches only the caches it names.
final class LoadedCaches: TransactionObserver {
    private(set) var byName: [ExactString: Cache] = [:]
    private(set) var byID: [Int64: Cache] = [:]
    /// Moved on by each rollback, and each commit elsewhere that may have changed anything.
    private var generation = 0
    /// ... and also whenever the other writers cannot be asked
    /// (`ChangeRecord.isUnknown`): a memory-only cache's entries are this
    /// writer's own, and while the store cannot be read it keeps serving
    /// them with the settings it has, rather than fail reading them again.
    /// Never behind `generation`.
    private var persistentGeneration = 0
    /// Caches claimed for this process's app version in the open transaction
    /// (`CacheRegistry.reconcileAppVersion`): a rollback takes the claim back, and
    /// such a cache is forgotten, so that its next use claims it again
    /// rather than read the version it replaced as another process's claim.
    private var claims: [Cache] = []
    /// Receives the removals made here and the changes other writers made (`Store.onEntryChange`).
    var onEntryChange: ((EntryChange) -> Void)?

    func noteClaim(_ cache: Cache) { claims.append(cache) }

    func transactionDidCommit() {
        if !claims.isEmpty { claims.removeAll() }
    }

    /// What a cache compares with its own before each use.
    @inline(__always)
    func generation(persistent: Bool) -> Int { persistent ? persistentGeneration : generation }

    func add(_ cache: Cache) {
        // A cache found dropped (by another writer, or by a rollback of its
        // creation) gives its name to the one loaded now; its id may already
        // be another's, SQLite reusing the ids of rows rolled back.
        if let replaced = byName.updateValue(cache, forKey: ExactString(cache.name)), byID[replaced.id] === replaced {
            byID[replaced.id] = nil
        }
        byID[cache.id] = cache
    }

    func remove(_ cache: Cache) {
        if byName[ExactString(cache.name)] === cache { byName[ExactString(cache.name)] = nil }
        if byID[cache.id] === cache { byID[cache.id] = nil }
    }

    func transactionDidRollBack() {
        everythingChanged()
        for c in claims {
            c.isClaimed = false
            remove(c)
        }
        claims.removeAll()
    }

    /// A savepoint undid writes that may have reached any cache (a
    /// transaction's, SPEC 6.15): each reads itself again before its next
    /// use, as after a rollback. Claims stay: the transaction makes none.
    func savepointUndidWrites() { everythingChanged() }

    private func everythingChanged() {
        generation &+= 1
        persistentGeneration &+= 1
    }

    func storeChanged(elsewhere changes: ChangeRecord) {
        publish(elsewhere: changes)
        if changes.isUnknown {
            persistentGeneration &+= 1
            return
        }
        if changes.everything { return everythingChanged() }
        for id in changes.wholeCaches { byID[id]?.storeChanged(elsewhere: changes) }
        for id in changes.keys.keys { byID[id]?.storeChanged(elsewhere: changes) }
    }

    /// Tells `onEntryChange` what another writer's commit changed, by the
    /// names of the caches loaded here.
    private func publish(elsewhere changes: ChangeRecord) {
        guard let onEntryChange else { return }
        if changes.everything { return onEntryChange(.anythingChangedElsewhere) }
        var unknownCache = false
        for id in changes.wholeCaches {
            if let c = byID[id] { onEntryChange(.changedElsewhere(cache: c.name, key: nil)) } else { unknownCache = true }
        }
        for (id, keys) in changes.keys {
            guard let c = byID[id] else {
                unknownCache = true
                continue
            }
            for k in keys { onEntryChange(.changedElsewhere(cache: c.name, key: k)) }
        }
        if unknownCache { onEntryChange(.anythingChangedElsewhere) }
    }
}
