import LarderJSON
import LarderStorage
import LarderSQLite

/// What the server asks of the store, each answered by the subsystem that
/// owns it: the transactions, the caches, the budget, encryption, object
/// types and entities. Nothing here holds state or decides anything.
extension Store {
    // MARK: - Transactions

    /// Opens the write transaction that collects every write until `commit`
    /// (group commit: one fsync-free WAL append for a whole burst).
    public func beginWrite(changing scope: ChangeScope = .everything) throws(StoreError) {
        try transactions.begin(changing: scope)
    }

    /// Runs `body` so that its writes happen entirely or not at all.
    func atomically(changing scope: ChangeScope = .everything, _ body: () throws(StoreError) -> Void) throws(StoreError) {
        try transactions.atomically(changing: scope, body)
    }

    /// A request begins: a statement of it that fails undoes its own work
    /// only, where that can be done (`requestFailed`).
    public func beginRequest() { transactions.beginRequest() }

    /// The request begun last failed: if a statement of it broke a
    /// constraint after it had already changed rows that cannot be taken
    /// back alone, the open transaction is doomed (`transactionFailed`);
    /// otherwise it goes on, and the other requests of the burst commit.
    public func requestFailed() { transactions.requestFailed() }

    /// True when writes wait for `commit`, or a failure waits to be reported by it.
    public var hasPendingWrites: Bool { transactions.hasPendingWrites }

    /// True when SQLite reported an error since the last commit: the writes
    /// made since can only be rolled back, and `commit` will say so.
    public var transactionFailed: Bool { transactions.failed }

    /// Makes every write so far durable. If anything fails, everything since
    /// the last commit is rolled back — memory tiers, cached definitions and
    /// staged batches follow (each a `TransactionObserver`), so nothing
    /// unacknowledged is served later — and the error is thrown; the next
    /// write starts a fresh transaction.
    public func commit() throws(StoreError) {
        try transactions.commit()
    }

    /// Checks whether another process committed since we last looked; if so,
    /// what memory holds of the store is dropped so nothing stale is served.
    public func noticeForeignWrites() throws(StoreError) {
        try transactions.noticeForeignWrites()
    }

    /// How often SQLite's data_version was asked.
    var dataVersionQueries: Int { (transactions.otherWriters as? SQLiteOtherWriters)?.dataVersionQueries ?? 0 }

    // MARK: - Caches

    /// The cache named `name`: loaded from the store, or created with default
    /// settings when `create` is true; nil when it does not exist.
    public func cache(named name: String, create: Bool) throws(StoreError) -> Cache? {
        try caches.cache(named: name, create: create)
    }

    /// `cache(named:create:)` for a name given as UTF-8 (valid UTF-8): the
    /// cache last used is recognised without making a String.
    public func cache(namedUTF8 name: UnsafeBufferPointer<UInt8>, create: Bool) throws(StoreError) -> Cache? {
        try caches.cache(namedUTF8: name, create: create)
    }

    /// Opens (creating if needed) a cache and applies a settings change.
    public func open(_ name: String, change: CacheConfigChange) throws(StoreError) -> (cache: Cache, created: Bool) {
        try caches.open(name, change: change)
    }

    /// Every cache in the store, by name.
    public func allCaches() throws(StoreError) -> [Cache] { try caches.all() }

    /// Deletes a cache, its settings and all its entries.
    public func drop(_ name: String) throws(StoreError) { try caches.drop(name) }

    /// Removes the chosen entries from every cache (`CacheRegistry.clear`).
    public func clear(_ entries: ClearedEntries, includingStores: Bool) throws(StoreError) -> [(cache: String, removed: Int)] {
        try caches.clear(entries, includingStores: includingStores)
    }

    /// Declares the app's version (`CacheRegistry.declareAppVersion`).
    public func declareAppVersion(_ version: String) throws(StoreError) { try caches.declareAppVersion(version) }

    /// The app's version, once declared.
    public var appVersion: String? { caches.context.appVersion }

    /// The version the store last saw before this process declared one.
    public var previousAppVersion: String? { caches.previousAppVersion }

    /// Removes expired entries in the background (`CacheRegistry.purgeExpiredInBackground`).
    public func purgeExpiredInBackground(budget: UInt64) throws(StoreError) -> Bool {
        try caches.purgeExpiredInBackground(budget: budget)
    }

    /// Receives eviction and clearing events; nil when nobody listens.
    public var onEvent: ((CacheEvent) -> Void)? {
        get { caches.context.onEvent }
        set { caches.context.onEvent = newValue }
    }

    /// Whether the events of a cache carry the entry's value; nil: none do.
    public var eventValues: ((String) -> Bool)? {
        get { caches.context.eventValues }
        set { caches.context.eventValues = newValue }
    }

    /// Receives every `EntryChange`; nil: nobody listens.
    public var onEntryChange: ((EntryChange) -> Void)? {
        get { caches.loaded.onEntryChange }
        set { caches.loaded.onEntryChange = newValue }
    }

    // MARK: - Budget

    /// The budget and what the caches hold against it.
    public struct BudgetStatus: Sendable, Equatable {
        public let maxBytes: Int
        public let bytes: Int
        public var exceeded: Bool { bytes > maxBytes }
    }

    /// The store-wide disk budget (`--max-store-bytes`): the bytes of values
    /// all persistent caches may hold together; nil: none.
    public var maxStoreBytes: Int? {
        get { budget.maxBytes }
        set { budget.maxBytes = newValue }
    }

    /// The budget's status; nil without one.
    public func budgetStatus() throws(StoreError) -> BudgetStatus? { try budget.status() }

    // MARK: - Encryption

    /// The keys the session holds for encrypted caches.
    public var encryptionKeys: EncryptionKeys { encryption.keys }

    /// The keys this session holds for encrypted caches. Every cache checks
    /// them again at its next use.
    public func useEncryptionKeys(_ keys: EncryptionKeys) {
        encryption.keys = keys
        for c in caches.loaded.byName.values { c.sealer = nil }
    }

    // MARK: - Object types

    public func register(_ schema: TypeSchema) throws(StoreError) -> Bool { try objects.register(schema) }

    public func extend(type: String, category: String, fields: [FieldDefinition]) throws(StoreError) -> TypeSchema {
        try objects.extend(type: type, category: category, fields: fields)
    }

    public func versions(of type: String) throws(StoreError) -> [TypeSchema] { try objects.versions(of: type) }

    public func newestSchema(of type: String) throws(StoreError) -> TypeSchema? { try objects.newestSchema(of: type) }

    public func schema(of type: String, version: SchemaVersion) throws(StoreError) -> TypeSchema? {
        try objects.schema(of: type, version: version)
    }

    public func schemaTypes() throws(StoreError) -> [String] { try objects.schemaTypes() }

    public func removeSchema(_ type: String) throws(StoreError) -> Int { try objects.removeSchema(type) }

    // MARK: - Entities

    public func define(_ model: EntityModel) throws(StoreError) -> ModelDefinitionResult { try entities.define(model) }

    public func entityModels() throws(StoreError) -> [EntityModel] { try entities.entityModels() }

    public func record(_ entity: String, id: JSON, include: [String] = []) throws(StoreError) -> JSON? {
        try entities.record(entity, id: id, include: include)
    }

    public func records(_ entity: String, ids: [JSON], include: [String] = []) throws(StoreError) -> [JSON?] {
        try entities.records(entity, ids: ids, include: include)
    }

    public func query(_ entity: String, _ query: RecordQuery, include: [String] = []) throws(StoreError) -> [JSON] {
        try entities.query(entity, query, include: include)
    }

    public func count(_ entity: String, where conditions: JSON? = nil) throws(StoreError) -> Int {
        try entities.count(entity, where: conditions)
    }

    /// Entity records staged by `stage` and not yet applied or discarded.
    public var stagedEntities: EntityBatch { entities.staged }

    public func stage(_ records: [JSON], entity name: String, into batch: inout EntityBatch) throws(StoreError) {
        try entities.stage(records, entity: name, into: &batch)
    }

    @discardableResult
    public func stage(_ records: [JSON], entity: String) throws(StoreError) -> Int { try entities.stage(records, entity: entity) }

    public func applyStaged(onMissing: MissingReferencePolicy = .fail) throws(StoreError) -> ApplyResult {
        try entities.applyStaged(onMissing: onMissing)
    }

    @discardableResult
    public func discardStaged() -> Int { entities.discardStaged() }

    public func upsert(_ records: [JSON], entity: String, onMissing: MissingReferencePolicy = .fail) throws(StoreError) -> ApplyResult {
        try entities.upsert(records, entity: entity, onMissing: onMissing)
    }

    public func apply(_ batch: EntityBatch, onMissing: MissingReferencePolicy = .fail) throws(StoreError) -> ApplyResult {
        try entities.apply(batch, onMissing: onMissing)
    }

    public func deleteRecord(_ entity: String, id: JSON) throws(StoreError) -> DeleteResult { try entities.deleteRecord(entity, id: id) }

    public func render(_ record: JSON, entity name: String, at path: String = "record") throws(StoreError) -> JSON {
        try entities.render(record, entity: name, at: path)
    }

    public func parse(_ json: JSON, entity name: String, at path: String = "json") throws(StoreError) -> JSON {
        try entities.parse(json, entity: name, at: path)
    }
}
