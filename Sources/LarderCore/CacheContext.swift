import LarderStorage

/// What a cache sees of its store: the database and its transactions, the
/// clock, recency, where events go, the store budget, the encryption keys,
/// the object types (for `Cache+Objects`), and what the loaded caches share
/// (their generation, the purge schedule, the app version). Nothing else of
/// the store: not its other caches' registry, its entities, its files.
///
/// One per store, made by it and outliving its caches, which hold it
/// unchecked (`Cache.context`): a field reached through it costs a get what
/// one reached through the store did.
final class CacheContext {
    /// The connection every statement goes through.
    let database: any SQLConnection
    /// How rows are written: at once, or queued (chosen once, by the engine).
    let diskWriter: any DiskWriter
    /// The write transactions, and who follows them.
    let transactions: Transactions
    let clock: Clock
    /// Recency noted by reads, written with the next commit.
    let recency: RecencyLog
    /// Where entries' revisions come from.
    let revisions: EntryRevisions
    let budget: StoreBudget
    let encryption: StoreEncryption
    let objects: ObjectStore
    /// Open caches by name and by id, following the store's transactions.
    let loaded: LoadedCaches
    /// When caches with entries that expire are next due for the background purge.
    var purgeSchedule = PurgeSchedule()
    /// The app's version, once declared: a cache whose data another version
    /// wrote is wiped when first used (`CacheRegistry.reconcileAppVersion`).
    var appVersion: String?
    /// Receives eviction and clearing events; nil when nobody listens, and
    /// then no event is even made (an eviction's would cost two Strings).
    var onEvent: ((CacheEvent) -> Void)?
    /// Whether the events of a cache carry the entry's value; nil: none do.
    /// Only then does removing an entry from disk read its value first.
    var eventValues: ((String) -> Bool)?

    init(database: any SQLConnection, transactions: Transactions, clock: Clock, recency: RecencyLog, revisions: EntryRevisions, budget: StoreBudget,
         encryption: StoreEncryption, objects: ObjectStore, loaded: LoadedCaches) {
        self.database = database
        diskWriter = database.dialect.pipelinesWrites ? PipelinedDiskWriter(database: database) : ImmediateDiskWriter()
        self.transactions = transactions
        self.clock = clock
        self.recency = recency
        self.revisions = revisions
        self.budget = budget
        self.encryption = encryption
        self.objects = objects
        self.loaded = loaded
    }

    func emit(_ event: @autoclosure () -> CacheEvent) {
        onEvent?(event())
    }

    /// Publishes a removal made here (`Store.onEntryChange`).
    func entriesChanged(_ change: EntryChange) {
        loaded.onEntryChange?(change)
    }
}
