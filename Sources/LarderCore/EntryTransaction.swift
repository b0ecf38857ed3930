import LarderJSON
import LarderStorage

/// A transaction over entries of any caches (SPEC 6.15): comparisons
/// evaluated at one instant, then the `then` operations if every one holds,
/// else the `else` operations, applied all or none.
public struct EntryTransaction: Sendable {
    /// An entry named by a comparison or an operation.
    public struct Target: Sendable {
        public var cache: String
        public var key: EntryKey
        public init(cache: String, key: EntryKey) {
            self.cache = cache
            self.key = key
        }
    }

    /// What a comparison requires of the live entry (`WriteCondition`'s "live").
    public enum Test: Sendable {
        /// The live entry is at this revision.
        case revision(Int64)
        /// There is no live entry.
        case absent
        /// There is a live entry.
        case present
        /// The live entry holds JSON equal to this (`JSON`'s equality:
        /// members in any order, numbers by value).
        case value(JSON)
    }

    public struct Comparison: Sendable {
        public var target: Target
        public var test: Test
        public init(_ target: Target, _ test: Test) {
            self.target = target
            self.test = test
        }
    }

    public enum Action: Sendable {
        case set(kind: Entry.Kind, bytes: [UInt8], ttl: Int64?)
        case remove
        case increment(by: Int64, initial: Int64, ttl: Int64?)
        case get

        /// Whether it creates its cache when that does not exist.
        var creates: Bool {
            switch self {
            case .set, .increment: return true
            case .remove, .get: return false
            }
        }
    }

    public struct Operation: Sendable {
        public var target: Target
        public var action: Action
        public init(_ target: Target, _ action: Action) {
            self.target = target
            self.action = action
        }
    }

    public var compare: [Comparison]
    public var then: [Operation]
    public var otherwise: [Operation]

    public init(compare: [Comparison], then: [Operation], otherwise: [Operation]) {
        self.compare = compare
        self.then = then
        self.otherwise = otherwise
    }

    /// What one operation did.
    public enum OperationResult: Sendable {
        case stored(revision: Int64)
        case removed(Bool)
        case counted(value: Int64, revision: Int64)
        /// What `Cache.get` found: nil for no live entry, or no such cache.
        case got(Cache.Lookup?)
    }

    /// The first comparison that did not hold, and the live entry's revision then.
    public struct Failure: Sendable, Equatable {
        public var index: Int
        public var key: String
        public var revision: Int64?
    }

    public struct Outcome: Sendable {
        /// Every comparison held, and `then` was applied; else `else` was.
        public var succeeded: Bool
        public var results: [OperationResult]
        public var failed: Failure?
    }
}

extension Store {
    /// Runs a transaction (SPEC 6.15). Its entries are all in persistent
    /// caches (caches it creates are), and it runs in the write transaction,
    /// which holds the store's write lock, under a savepoint; or all in
    /// memory-only ones, and it runs in the process alone. Either way an
    /// operation that fails undoes every one before it, and what the
    /// comparisons read is what the operations start from.
    public func run(_ t: EntryTransaction) throws(StoreError) -> EntryTransaction.Outcome {
        let memoryOnly = try memoryOnlyCaches(of: t)
        if !memoryOnly { try transactions.begin(changing: .entries) }
        let failed = try firstComparisonFailing(t.compare)
        let (branch, name) = failed == nil ? (t.then, "then") : (t.otherwise, "else")
        let results = memoryOnly ? try applyInMemory(branch, branch: name) : try applyInStore(branch, branch: name)
        return EntryTransaction.Outcome(succeeded: failed == nil, results: results, failed: failed)
    }

    /// Whether every entry the transaction names is in a memory-only cache;
    /// -32602 naming the cache when memory-only and persistent caches mix
    /// (one outside the store cannot be undone with it). A cache that does
    /// not exist counts only where an operation would create it, persistent.
    private func memoryOnlyCaches(of t: EntryTransaction) throws(StoreError) -> Bool {
        var memoryOnly: String?
        var persistent: String?
        let named = t.compare.map { ($0.target.cache, false) } + (t.then + t.otherwise).map { ($0.target.cache, $0.action.creates) }
        for (name, creates) in named {
            if let c = try caches.cache(named: name, create: false) {
                if c.config.persistent { persistent = persistent ?? name } else { memoryOnly = memoryOnly ?? name }
            } else if creates {
                persistent = persistent ?? name
            }
        }
        guard let memoryOnly else { return false }
        guard let persistent else { return true }
        throw .invalidArgument(field: "cache", reason: "\"\(memoryOnly)\" is a memory-only cache and \"\(persistent)\" is not: a transaction's entries must all be in persistent caches or all in memory-only ones")
    }

    /// The first comparison, in list order, that does not hold. Each reads
    /// the entry as a conditional write checks it (`Cache.entryForWrite`):
    /// from the store in the write transaction, on PostgreSQL its row
    /// locked until the transaction ends — there each cache's rows in one
    /// statement (`lockedEntries`): one at a time, 10 comparisons were 10
    /// round trips.
    private func firstComparisonFailing(_ compare: [EntryTransaction.Comparison]) throws(StoreError) -> EntryTransaction.Failure? {
        var locked: [String: [EntryKey: Entry]] = [:]
        if database.dialect.pipelinesWrites {
            var keys: [String: [EntryKey]] = [:], values: Set<String> = []
            for c in compare {
                keys[c.target.cache, default: []].append(c.target.key)
                if case .value = c.test { values.insert(c.target.cache) }
            }
            for (name, named) in keys.sorted(by: { $0.key < $1.key }) {
                guard let cache = try caches.cache(named: name, create: false), cache.config.persistent, try cache.readyToRead() else { continue }
                locked[name] = try cache.lockedEntries(Array(Set(named)), values: values.contains(name))
            }
        }
        for (index, c) in compare.enumerated() {
            var live: Entry?
            if let entries = locked[c.target.cache] {
                live = entries[c.target.key]
            } else if let cache = try caches.cache(named: c.target.cache, create: false), try cache.readyToRead() {
                live = try cache.entryForWrite(c.target.key).live
            }
            let holds: Bool
            switch c.test {
            case .revision(let r): holds = live?.revision == r
            case .absent: holds = live == nil
            case .present: holds = live != nil
            case .value(let v):
                if let live, live.kind == .json, let stored = try? JSONParser.parse(live.bytes) { holds = stored == v } else { holds = false }
            }
            if !holds { return EntryTransaction.Failure(index: index, key: c.target.key.key, revision: live?.revision) }
        }
        return nil
    }

    /// Applies persistent caches' operations under a savepoint. Events wait
    /// for the end: a rolled back removal or eviction did not happen. After
    /// a rollback every cache reads itself again before its next use, as
    /// after a failed commit: the operations may have changed memory tiers,
    /// totals, other caches' entries (the store's budget) and created caches.
    private func applyInStore(_ operations: [EntryTransaction.Operation], branch: String) throws(StoreError) -> [EntryTransaction.OperationResult] {
        let context = caches.context
        let listener = context.onEvent
        var events: [CacheEvent] = []
        if listener != nil { context.onEvent = { events.append($0) } }
        defer { context.onEvent = listener }
        var results: [EntryTransaction.OperationResult] = []
        results.reserveCapacity(operations.count)
        do {
            try transactions.atomically(changing: .entries) { () throws(StoreError) in
                for (index, op) in operations.enumerated() {
                    do throws(StoreError) { results.append(try apply(op)) } catch {
                        throw error.inOperation(index, of: branch, key: op.target.key.key)
                    }
                }
            }
        } catch {
            context.loaded.savepointUndidWrites()
            throw error
        }
        context.onEvent = listener
        if let listener { for e in events { listener(e) } }
        return results
    }

    /// Applies memory-only caches' operations: rehearsed first on what
    /// they would leave, so that one that would fail (a count that is not
    /// an integer, a value too large) fails before anything is changed.
    private func applyInMemory(_ operations: [EntryTransaction.Operation], branch: String) throws(StoreError) -> [EntryTransaction.OperationResult] {
        var after: [String: [EntryKey: Entry?]] = [:]
        for (index, op) in operations.enumerated() {
            do throws(StoreError) {
                guard let cache = try caches.cache(named: op.target.cache, create: false) else { continue }
                try cache.ready()
                let k = op.target.key
                switch op.action {
                case .set(let kind, let bytes, _):
                    try cache.checkFits(bytes.count)
                    after[cache.name, default: [:]][k] = Entry(kind: kind, bytes: bytes, storedAt: 0, ttl: nil)
                case .remove:
                    after[cache.name, default: [:]][k] = .some(nil)
                case .increment(let by, let initial, _):
                    let live: Entry?
                    if let rehearsed = after[cache.name]?[k] { live = rehearsed } else { live = try cache.entryForWrite(k).live }
                    let sum = try Cache.sum(live, by: by, initial: initial, key: k.key)
                    after[cache.name, default: [:]][k] = Entry(kind: .json, bytes: Array(String(sum).utf8), storedAt: 0, ttl: nil)
                case .get:
                    break
                }
            } catch {
                throw error.inOperation(index, of: branch, key: op.target.key.key)
            }
        }
        var results: [EntryTransaction.OperationResult] = []
        for (index, op) in operations.enumerated() {
            do throws(StoreError) { results.append(try apply(op)) } catch {
                throw error.inOperation(index, of: branch, key: op.target.key.key)
            }
        }
        return results
    }

    private func apply(_ op: EntryTransaction.Operation) throws(StoreError) -> EntryTransaction.OperationResult {
        let k = op.target.key
        switch op.action {
        case .set(let kind, let bytes, let ttl):
            let cache = try caches.cache(named: op.target.cache, create: true)!
            return .stored(revision: try cache.set(Cache.Write(key: k, kind: kind, bytes: bytes, ttl: ttl)))
        case .increment(let by, let initial, let ttl):
            let cache = try caches.cache(named: op.target.cache, create: true)!
            let (value, revision) = try cache.increment(k, by: by, initial: initial, ttl: ttl)
            return .counted(value: value, revision: revision)
        case .remove:
            guard let cache = try caches.cache(named: op.target.cache, create: false) else { return .removed(false) }
            return .removed(try cache.remove(k))
        case .get:
            guard let cache = try caches.cache(named: op.target.cache, create: false) else { return .got(nil) }
            return .got(try cache.get(k))
        }
    }
}

extension StoreError {
    /// The error of a transaction's operation, naming it where the
    /// operation itself is at fault; what the store fails at stays as it is
    /// (its retryability, its data).
    func inOperation(_ index: Int, of branch: String, key: String) -> StoreError {
        switch self {
        case .notAnInteger, .invalidArgument: return .operation(branch: branch, index: index, key: key, error: self)
        default: return self
        }
    }
}
