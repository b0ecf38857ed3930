import LarderJSON

/// Everything the persistence core can refuse or fail at. The server maps
/// each case to one JSON-RPC error code, in one place.
public enum StoreError: Error, Equatable, Sendable {
    /// The store directory or database cannot be created or opened.
    case unavailable(path: String, reason: String)
    /// The database file at `path` was deleted, moved away or replaced while
    /// in use (`reason` says which): nothing written since is where the next
    /// start will look.
    case lost(path: String, reason: String)
    /// SQLite reported an error (I/O, disk full, corruption, a read-only file).
    case storage(code: Int32, message: String)
    /// The PostgreSQL server cannot be reached: connecting failed, the
    /// connection was lost, or the server is shutting down (`sqlState` when
    /// it said so). What was not answered as committed was not acknowledged;
    /// the request may be sent again once the server is back.
    case storageUnavailable(reason: String, sqlState: String?)
    /// PostgreSQL refused a statement: its SQLSTATE and message.
    case postgreSQL(sqlState: String, message: String)
    /// A row Larder wrote cannot be read back as what it wrote (changed
    /// outside Larder, or damaged): which, and what is wrong with it. Nothing
    /// is guessed in its place.
    case corrupt(Corrupted, reason: String)
    /// Larder broke one of its own rules: a fault of the server itself, not
    /// of the request or of the disk.
    case internalFailure(String)
    /// A cache that must exist does not.
    case cacheNotFound(String)
    /// A different definition is already registered under this type and version.
    case schemaConflict(type: String, version: String)
    /// No version of this type is registered.
    case schemaNotFound(String)
    /// The type is registered, but not at this version.
    case schemaVersionNotFound(type: String, version: String)
    /// An object does not match its schema: where, and what was expected.
    case invalidObject(path: String, reason: String)
    /// No chain of migrations leads from the stored version to the newest.
    case migrationMissing(type: String, from: String, to: String, fields: [String])
    /// A migration step, a client callback or the result's validation failed; the stored data is untouched.
    case migrationFailed(key: String, type: String, from: String, to: String, reason: String)
    /// The entry under the key is not an object (it was stored with cache.set).
    case notAnObject(key: String)
    /// A definition (schema, migration, model) has a member it may not have;
    /// its path is relative to the definition's params.
    case unknownMember(UnknownMember)
    /// A parameter is well-typed but its value is not acceptable.
    case invalidArgument(field: String, reason: String)
    /// No model defines an entity of this name.
    case entityNotFound(String)
    /// A redefinition would change or drop what is stored: every change, as a sentence.
    case modelConflict(model: String, changes: [String])
    /// An apply names records that exist neither in the batch nor in the store; nothing was written.
    case unresolvedReferences([UnresolvedReference])
    /// A deny rule forbids deleting a record while related records exist.
    case deleteDenied(entity: String, id: JSON, relationship: String, related: Int)
    /// A record new to the store lacks required attributes.
    case incompleteRecord(entity: String, id: JSON, missing: [String])
    /// An encrypted cache cannot be used with the keys the session holds.
    case encryption(cache: String, problem: EncryptionProblem)
    /// A sealed entry of an encrypted cache does not open (changed outside
    /// Larder, or moved to another row): only that entry is unreadable.
    /// `key` is nil when the sealed key itself is what does not open.
    case integrity(cache: String, key: String?)
    /// The cache was claimed by a process of another app version after this
    /// one (`appVersion`) began using it: it now holds that version's
    /// (`cacheAppVersion`) data, which this process reads as empty and may
    /// not write over (SPEC 6.9).
    case appVersionSuperseded(cache: String, appVersion: String, cacheAppVersion: String)
    /// A conditional write's condition did not hold: `revision` is the live
    /// entry's, nil when there was none (SPEC 6.14). Nothing was written.
    case conditionFailed(key: String, expected: String, revision: Int64?)
    /// `cache.increment` (or an `increment` of a transaction) found a value that is not an integer within
    /// ±(2^53 − 1), or its result would not be one (SPEC 6.14).
    case notAnInteger(key: String, reason: String)
    /// A lease renewed or released with a token that is not its holder's:
    /// the name, and the token of the lease now held on it (nil when none is).
    case lockNotHeld(name: String, token: Int64?)
    /// Operation `index` of a transaction's `branch` ("then" or "else"),
    /// on the entry `key`, failed with `error`; nothing of the transaction
    /// was written (SPEC 6.15).
    indirect case operation(branch: String, index: Int, key: String, error: StoreError)
    /// Reading the element at `index` of an array of objects failed with `error`;
    /// nothing of the array was written.
    indirect case element(index: Int, error: StoreError)
}

extension StoreError {
    /// Why an encrypted cache cannot be used.
    public enum EncryptionProblem: String, Equatable, Sendable {
        /// The session holds no key for it.
        case keyRequired
        /// The session's key is not the one its data was sealed under.
        case keyMismatch
        /// A `cache.rekey` stopped part-way: the cache is usable again once
        /// one with the same keys finishes it.
        case rekeyInterrupted
        /// A `cache.rekey` of it is under way.
        case rekeyRunning
    }
}

extension StoreError {
    /// What a corrupt row held.
    public enum Corrupted: Equatable, Sendable {
        /// A cache's settings (a `caches` row).
        case cacheSettings(cache: String)
        /// A registered version of an object type (a `schemas` row).
        case schema(type: String, version: String)
        /// An entity model's definition (an `entity_models` row).
        case entityModel(String)
    }
}
