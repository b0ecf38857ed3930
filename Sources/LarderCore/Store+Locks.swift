import LarderStorage

/// Leases and locks (`LockTable`), as the server asks for them.
extension Store {
    /// Takes the lease on `name` for `ttl` milliseconds, unless a live one is held.
    public func acquireLock(_ name: String, ttl: Int64) throws(StoreError) -> LockAcquisition {
        try locks.acquire(name, ttl: ttl)
    }

    /// Extends the live lease under `token`; returns its new expiry.
    public func renewLock(_ name: String, token: Int64, ttl: Int64) throws(StoreError) -> Int64 {
        try locks.renew(name, token: token, ttl: ttl)
    }

    /// Gives back the lease under `token`; false when it had expired or been released.
    public func releaseLock(_ name: String, token: Int64) throws(StoreError) -> Bool {
        try locks.release(name, token: token)
    }

    /// The live leases whose names begin with `prefix`, in byte order.
    public func leases(prefix: String) throws(StoreError) -> [Lease] {
        try locks.list(prefix: prefix)
    }

    /// Whether `name` has no live lease now (read without the writer's lock).
    public func lockIsFree(_ name: String) throws(StoreError) -> Bool {
        try locks.isFree(name)
    }

    /// Gives back every lease this session holds (in the open write transaction).
    public func releaseHeldLocks() throws(StoreError) {
        try locks.releaseHeld()
    }

    /// Takes the fetch lease on `key` of `cache` for `ttl` milliseconds
    /// (`cache.getOrFetch` with `shared`), unless another session holds a
    /// live one: then returns when that expires.
    public func takeFetchLease(_ key: EntryKey, of cache: Cache, ttl: Int64) throws(StoreError) -> Int64? {
        try locks.takeFetchLease(key, in: cache.disk, ttl: ttl)
    }

    /// Extends this session's fetch lease on `key` of `cache`.
    public func renewFetchLease(_ key: EntryKey, of cache: Cache, ttl: Int64) throws(StoreError) {
        try locks.renewFetchLease(key, in: cache.disk, ttl: ttl)
    }

    /// Gives back this session's fetch lease on `key` of `cache`.
    public func releaseFetchLease(_ key: EntryKey, of cache: Cache) throws(StoreError) {
        try locks.releaseFetchLease(key, in: cache.disk)
    }

    /// When another session's live fetch lease on `key` of `cache` expires; nil if there is none.
    public func fetchLeaseHeldElsewhere(_ key: EntryKey, of cache: Cache) throws(StoreError) -> Int64? {
        try locks.fetchLeaseHeldElsewhere(key, in: cache.disk)
    }
}
