import LarderStorage

/// A conditional write or an increment that the store checks as it runs the
/// write (PostgreSQL: `CacheSQL.Checked`), queued with the burst's other
/// statements: what it did is known once the store has answered them
/// (`settle`, or the commit), and only then asked for. A caller that cannot
/// wait for the commit settles first (`Cache.set`, `Cache.increment`); the
/// server's direct path holds the request's answer until the commit.
public final class PendingWrite {
    /// A write that went ahead.
    public struct Written {
        public let revision: Int64
        /// The sum an increment stored; 0 for a set.
        public let count: Int64
    }

    private var answer: Result<Written, StoreError>?
    /// A failure whose details only a read after the statement can give.
    private var failureToRead: (() -> StoreError)?

    init() {}

    fileprivate func wrote(_ written: Written) { answer = .success(written) }
    fileprivate func failed(_ error: StoreError) { answer = .failure(error) }
    fileprivate func failed(reading details: @escaping () -> StoreError) { failureToRead = details }

    /// What the write did, once the store has answered; a failed condition is
    /// `.conditionFailed`, an increment of something that is not a counter
    /// `.notAnInteger`.
    public func outcome() -> Result<Written, StoreError> {
        if let read = failureToRead {
            failureToRead = nil
            answer = .failure(read())
        }
        return answer ?? .failure(.internalFailure("a checked write's outcome was asked for before the store answered"))
    }
}

extension Cache {
    /// Whether this cache's conditional writes and increments are checked by
    /// the statement that writes (`PendingWrite`): a persistent cache on an
    /// engine that queues writes (PostgreSQL).
    public var checksAsItWrites: Bool { config.persistent && context.database.dialect.pipelinesWrites }

    /// `set` with `condition`, checked by the statement that writes (see
    /// `checksAsItWrites`): its outcome is known once the store has answered.
    public func setChecked(_ k: EntryKey, kind: Entry.Kind, value: UnsafeBufferPointer<UInt8>, ttl: Int64?,
                           condition: WriteCondition) throws(StoreError) -> PendingWrite {
        let check: DiskTier.Check
        switch condition {
        case .revision(let r): check = .revision(r)
        case .absent: check = .absent
        }
        return try writeChecked(k, kind: kind, value: value, ttl: ttl, check: check)
    }

    /// `increment`, added by the statement that writes (see
    /// `checksAsItWrites`); nil where the store cannot: an encrypted cache's
    /// values are sealed, and where `initial` + `by` is itself outside the
    /// range it only fails if the key holds no live entry, which `increment`
    /// reads first to tell.
    public func incrementChecked(_ k: EntryKey, by delta: Int64, initial: Int64, ttl: Int64?) throws(StoreError) -> PendingWrite? {
        guard !config.encrypted, let first = try? Self.sum(nil, by: delta, initial: initial, key: k.key) else { return nil }
        let bytes = Array(String(first).utf8)
        return try bytes.withUnsafeBufferPointer { (value) throws(StoreError) in
            try writeChecked(k, kind: .json, value: value, ttl: ttl, check: .increment(by: delta, initial: initial))
        }
    }

    /// Queues the checked write of `value` under `k`. Until the store
    /// answers, the memory tier holds nothing for the key (the write may
    /// not happen), and the totals count the entry as written over the row
    /// the tier knew, as `PipelinedDiskWriter` counts a set: never less than
    /// the truth (an increment's sum as long as a counter's can be). When
    /// the answer comes, an entry written goes into the memory tier as a
    /// set's does, unless the tier changed meanwhile: then a later write or
    /// removal may be queued behind this one, and the entry is left to be
    /// read from its row.
    private func writeChecked(_ k: EntryKey, kind: Entry.Kind, value: UnsafeBufferPointer<UInt8>, ttl: Int64?,
                              check: DiskTier.Check) throws(StoreError) -> PendingWrite {
        _ = try joinWriteTransaction()
        try ready()
        try checkFits(value.count)
        if context.budget.maxBytes != nil { try context.budget.seeAllCaches() }
        var entry = Entry(kind: kind, bytes: [], storedAt: context.clock.now, ttl: ttl)
        entry.revision = try context.revisions.nextStored()
        if totalsAreStale { try loadTotals() }
        noteChanged(k)
        schedulePurge(expiringAt: entry.expiresAt(lifespan: config.lifespan))

        let assumed = memory.row(of: k)?.size
        _ = memory.remove(k)
        let changes = memory.changes
        let size = check.isIncrement ? Self.longestSum : value.count
        // A set's value is copied now: the caller's bytes are gone by the answer.
        let kept = !fitsInMemory(value.count) ? nil : check.isIncrement ? [] : Array(value)
        diskCount += assumed == nil ? 1 : 0
        diskBytes += size - (assumed ?? 0)

        let pending = PendingWrite()
        let liveAfter = config.returnsExpired ? Int64.min : context.clock.now
        try disk.writeChecked(k, entry, value: value, used: context.recency.next(), lifespan: config.lifespan,
                              check: check, liveAfter: liveAfter) { [self] answer in
            guard let id = answer.written else {
                diskCount -= assumed == nil ? 1 : 0
                diskBytes -= size - (assumed ?? 0)
                failure(of: check, k, answer, liveAfter: liveAfter, pending)
                return
            }
            let stored = answer.count.map { String($0).utf8.count } ?? size
            let replaced = answer.before?.size
            diskCount += (assumed == nil ? -1 : 0) + (replaced == nil ? 1 : 0)
            diskBytes += stored - size + (assumed ?? 0) - (replaced ?? 0)
            var written = entry
            written.diskID = id
            if var bytes = kept, memory.changes == changes {
                if let count = answer.count { bytes = Array(String(count).utf8) }
                written.bytes = bytes
                keepInMemory(k, written)
            }
            pending.wrote(PendingWrite.Written(revision: written.revision, count: answer.count ?? 0))
        }
        try evictFromDisk()
        try context.budget.keepWithin()
        return pending
    }

    /// The most bytes a counter's value takes: "-9007199254740991".
    private static let longestSum = String(-largestCount).utf8.count

    /// Why a checked write wrote nothing, from the row the statement found.
    /// Where it found none, another server inserted the key after its
    /// snapshot: that row is read afterwards.
    private func failure(of check: DiskTier.Check, _ k: EntryKey, _ answer: DiskTier.CheckedAnswer, liveAfter: Int64,
                         _ pending: PendingWrite) {
        switch check {
        case .revision(let expected):
            let live = answer.before.flatMap { b in b.expiresAt.map { $0 > liveAfter } ?? true ? b.revision : nil }
            pending.failed(.conditionFailed(key: k.key, expected: "revision \(expected)", revision: live))
        case .absent:
            // A row found live, or it would have been written over.
            if let before = answer.before {
                return pending.failed(.conditionFailed(key: k.key, expected: "no entry", revision: before.revision))
            }
            pending.failed { [self] in
                do throws(StoreError) {
                    let found = try disk.revision(of: k, locking: false, lifespan: config.lifespan)
                    return .conditionFailed(key: k.key, expected: "no entry", revision: liveRevision(found.map { ($0.revision, $0.expiresAt) }))
                } catch {
                    return error
                }
            }
        case .increment(let by, let initial):
            // Found live (or the sum would have started from `initial`, which is within range).
            if let counter = answer.counter, answer.before?.expiresAt.map({ $0 > liveAfter }) ?? true {
                do throws(StoreError) {
                    _ = try Self.sum(counter, by: by, initial: initial, key: k.key)
                } catch {
                    return pending.failed(error)
                }
            }
            pending.failed { [self] in
                do throws(StoreError) {
                    _ = try Self.sum(try entryForWrite(k, locking: false).live, by: by, initial: initial, key: k.key)
                    return .notAnInteger(key: k.key, reason: "its value was not an integer to which \(by) could be added within ±\(Self.largestCount)")
                } catch {
                    return error
                }
            }
        }
    }

    /// The live entries under `keys` as `entryForWrite` finds them, on
    /// PostgreSQL, read and locked by one statement; their values only if
    /// `values`.
    func lockedEntries(_ keys: [EntryKey], values: Bool) throws(StoreError) -> [EntryKey: Entry] {
        try disk.lockedEntries(keys, values: values).filter { isLive($0.value) }
    }

    /// Waits for a checked write's answer: one round trip, with whatever
    /// else is queued.
    func settled(_ pending: PendingWrite) throws(StoreError) -> PendingWrite.Written {
        try context.diskWriter.settle()
        return try pending.outcome().get()
    }
}

extension DiskTier.Check {
    var isIncrement: Bool {
        if case .increment = self { return true }
        return false
    }
}
