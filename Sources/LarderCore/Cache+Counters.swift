import LarderJSON
import LarderStorage

/// Counters (SPEC 6.14): an entry whose value is a JSON integer, added to
/// atomically, as a conditional write is checked.
extension Cache {
    /// The largest integer a counter holds: every JSON reader takes it exactly (RFC 8259, 6).
    public static let largestCount: Int64 = (1 << 53) - 1

    /// Adds `delta` to the integer under `k` (`initial` where there is no
    /// live entry) and stores the sum, with `ttl` as `set` takes it: the
    /// entry's lifetime restarts as a set's does. Returns the sum and the
    /// entry's new revision.
    public func increment(_ k: EntryKey, by delta: Int64, initial: Int64, ttl: Int64?) throws(StoreError) -> (value: Int64, revision: Int64) {
        // A second attempt only where another server inserted the key after
        // it was found absent: then its row is there to be read, locked.
        for attempt in 0..<2 {
            _ = try joinWriteTransaction()
            try ready()
            let (entry, live) = try entryForWrite(k)
            let sum = try Self.sum(live, by: delta, initial: initial, key: k.key)
            do {
                // The row just read is updated by its id, not looked up again.
                let bytes = Array(String(sum).utf8)
                let revision = try bytes.withUnsafeBufferPointer { (value) throws(StoreError) in
                    try set(k, kind: .json, value: value, ttl: ttl, shared: bytes, condition: entry == nil ? .absent : nil,
                            known: entry.flatMap { $0.diskID == 0 ? nil : ($0.diskID, $0.size) })
                }
                return (sum, revision)
            } catch {
                guard case .conditionFailed = error, attempt == 0 else { throw error }
            }
        }
        throw .internalFailure("a counter's row was neither free nor there")
    }

    /// What a counter whose live entry is `live` holds after adding `delta`.
    static func sum(_ live: Entry?, by delta: Int64, initial: Int64, key: String) throws(StoreError) -> Int64 {
        let start = try live.map { (e) throws(StoreError) in try integer(e, key: key) } ?? initial
        let (sum, overflow) = start.addingReportingOverflow(delta)
        guard !overflow, abs(sum) <= largestCount else {
            throw .notAnInteger(key: key, reason: "\(start) + \(delta) is outside ±\(largestCount)")
        }
        return sum
    }

    /// The entry under `k` as a write about to replace it sees it, and the
    /// entry itself where it is live (expired and not returned: not live).
    /// A persistent cache's row is read from the store, locked, on
    /// PostgreSQL; on SQLite the memory tier holds what the row holds (see
    /// `check`), and only an entry it lacks is read from the store.
    func entryForWrite(_ k: EntryKey) throws(StoreError) -> (entry: Entry?, live: Entry?) {
        let entry: Entry?
        if config.persistent {
            if context.database.dialect.pipelinesWrites {
                try context.diskWriter.settle()
                _ = try disk.revision(of: k, locking: true, lifespan: config.lifespan)
                entry = try disk.lookup(k)
            } else {
                if let e = memory.peek(k) { entry = e } else { entry = try disk.lookup(k) }
            }
        } else {
            entry = memory.peek(k)
        }
        guard let entry, config.returnsExpired || !entry.isExpired(at: context.clock.now, lifespan: config.lifespan) else {
            return (entry, nil)
        }
        return (entry, entry)
    }

    /// The integer a counter's entry holds.
    private static func integer(_ e: Entry, key: String) throws(StoreError) -> Int64 {
        guard e.kind == .json, case .number(let n)? = try? JSONParser.parse(e.bytes) else {
            throw .notAnInteger(key: key, reason: "its value is not a number")
        }
        let d = n.double
        guard d.rounded() == d, abs(d) <= Double(largestCount) else {
            throw .notAnInteger(key: key, reason: "its value \(String(decoding: e.bytes, as: UTF8.self).prefix(40)) is not an integer within ±\(largestCount)")
        }
        return Int64(d)
    }
}
