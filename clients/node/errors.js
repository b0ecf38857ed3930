// Errors: one class per JSON-RPC / Larder error code, all under LarderError.

/** The error codes the protocol defines. */
export const ErrorCode = Object.freeze({
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  serverNotInitialized: -32002,
  requestCancelled: -32800,
  requestFailed: -32803,
  storeUnavailable: -31000,
  storageFailure: -31001,
  storeLocked: -31002,
  storageUnavailable: -31003,
  storeLost: -31004,
  cacheNotFound: -31010,
  schemaConflict: -31020,
  schemaNotFound: -31021,
  invalidObject: -31022,
  notAnObject: -31023,
  migrationMissing: -31030,
  migrationFailed: -31031,
  entityNotFound: -31040,
  modelConflict: -31041,
  unresolvedReferences: -31042,
  deleteDenied: -31043,
  incompleteRecord: -31044,
  fetchFailed: -31050,
  encryptionKey: -31060,
  integrity: -31061,
  appVersionSuperseded: -31070,
  conditionFailed: -31080,
  notAnInteger: -31081,
  lockNotHeld: -31090,
});

const byCode = new Map();

/**
 * An error answered by the server (`code`, `message`, `data` as sent), or
 * thrown by a request handler to answer the server with that error.
 */
export class LarderError extends Error {
  constructor(code, message, data) {
    super(message);
    this.name = new.target.name;
    this.code = code;
    if (data !== undefined) this.data = data;
  }

  /** The error object of a JSON-RPC response, as an instance of the class registered for its code. */
  static fromResponse(error) {
    const code = typeof error?.code === 'number' ? error.code : ErrorCode.internalError;
    const message = typeof error?.message === 'string' ? error.message : JSON.stringify(error);
    const Class = byCode.get(code);
    return Class ? new Class(message, error?.data) : new LarderError(code, message, error?.data);
  }

  /**
   * Whether the server says the same request may succeed if sent again
   * unchanged (`data.retryable`): StorageUnavailable always, StoreLocked on
   * a store on PostgreSQL, EncryptionKeyError while a rekey runs.
   */
  get retryable() {
    return this.data?.retryable === true;
  }

  /** Makes `fromResponse` use `Class` (a subclass with a static `code`) for `code`. */
  static register(Class, code = Class.code) {
    byCode.set(code, Class);
    return Class;
  }

  /** The JSON-RPC error object for this error. */
  toJSON() {
    const o = { code: this.code, message: this.message };
    if (this.data !== undefined) o.data = this.data;
    return o;
  }
}

function codeClass(name, code) {
  const Class = {
    [name]: class extends LarderError {
      static code = code;
      constructor(message = name, data) {
        super(code, message, data);
      }
    },
  }[name];
  return LarderError.register(Class);
}

export const ParseError = codeClass('ParseError', ErrorCode.parseError);
export const InvalidRequest = codeClass('InvalidRequest', ErrorCode.invalidRequest);
/**
 * No such method (`debug.*` need `--enable-test-methods`). When a known
 * method is close the message ends `(did you mean cache.get?)` and
 * `data: {method, suggestion}`; otherwise there is no data.
 */
export const MethodNotFound = codeClass('MethodNotFound', ErrorCode.methodNotFound);
/**
 * Missing, mistyped, out-of-range or unknown parameters; nothing was done.
 * For a member the method does not know, at any depth (`params.tll`,
 * `params.memory.maxCont`, `params.entries[3].tll`), `data: {path, expected,
 * suggestion?}`: where it is, every member allowed there, and the one most
 * likely meant.
 */
export const InvalidParams = codeClass('InvalidParams', ErrorCode.invalidParams);
export const InternalError = codeClass('InternalError', ErrorCode.internalError);
export const ServerNotInitialized = codeClass('ServerNotInitialized', ErrorCode.serverNotInitialized);
export const RequestCancelled = codeClass('RequestCancelled', ErrorCode.requestCancelled);
export const RequestFailed = codeClass('RequestFailed', ErrorCode.requestFailed);
export const StoreUnavailable = codeClass('StoreUnavailable', ErrorCode.storeUnavailable);
/** SQLite failed, or the PostgreSQL server reported an error; `data: {sqliteCode}`, or `{sqlState}` on PostgreSQL. */
export const StorageFailure = codeClass('StorageFailure', ErrorCode.storageFailure);
/**
 * Another process held the store's lock for more than 5 seconds, or, on
 * PostgreSQL, another sidecar's transaction was in the way (a serialization
 * failure or deadlock); the write was not made and may be retried.
 * `data: {sqliteCode}`, or `{sqlState, retryable: true}` on PostgreSQL.
 */
export const StoreLocked = codeClass('StoreLocked', ErrorCode.storeLocked);
/**
 * The PostgreSQL server of a store on PostgreSQL cannot be reached. The
 * request was not carried out; the sidecar connects again by itself, and the
 * request may be sent again (`retryable`). `data: {retryable: true, sqlState?}`.
 */
export const StorageUnavailable = codeClass('StorageUnavailable', ErrorCode.storageUnavailable);
/**
 * The store's database file was deleted, moved away or replaced while the
 * sidecar used it: the writes waiting for that commit were not kept, every
 * later request rejects the same way, and the sidecar exits with code 3.
 * `data: {path}`, the database file.
 */
export const StoreLost = codeClass('StoreLost', ErrorCode.storeLost);
export const CacheNotFound = codeClass('CacheNotFound', ErrorCode.cacheNotFound);
/** `schema.register` of a registered version with another definition; `data: {type, version}`. */
export const SchemaConflict = codeClass('SchemaConflict', ErrorCode.schemaConflict);
/** No schema is registered for the type; `data: {type}`. */
export const SchemaNotFound = codeClass('SchemaNotFound', ErrorCode.schemaNotFound);
/** A value does not fit its type; `data: {path, reason}`, the path such as `value.barObject.date`. */
export const InvalidObject = codeClass('InvalidObject', ErrorCode.invalidObject);
/** The entry was stored with `cache.set`, not `object.put`; `data: {key}`. */
export const NotAnObject = codeClass('NotAnObject', ErrorCode.notAnObject);
/** No migration leads the stored version to the newest; `data: {type, fromVersion, toVersion, fields}`. */
export const MigrationMissing = codeClass('MigrationMissing', ErrorCode.migrationMissing);
/**
 * A migration step failed, or the client's `migrate.object` handler refused
 * (or was not declared); the stored object is left as it was.
 * `data: {key, type, fromVersion, toVersion, reason}`.
 */
export const MigrationFailed = codeClass('MigrationFailed', ErrorCode.migrationFailed);
/** No entity model defines an entity of that name (`entity.*` with an unknown `entity`); `data: {entity}`. */
export const EntityNotFound = codeClass('EntityNotFound', ErrorCode.entityNotFound);
/**
 * `entity.define` of an existing model with changes that cannot be made in
 * place (a type changed, an attribute removed or added as required, a
 * relationship or the casing changed, ...); nothing is changed.
 * `data: {model, changes}`, one sentence per change.
 */
export const ModelConflict = codeClass('ModelConflict', ErrorCode.modelConflict);
/**
 * `entity.apply` / `entity.upsert` met to-one references to records that
 * exist neither in the batch nor in the store; nothing was written (a staged
 * batch stays). `data: {missing: {Entity: [ids]}, references: [{entity, id,
 * relationship, destination, missingId}] (the first 100), count}`.
 * `onMissing: 'null'` clears such references instead.
 */
export const UnresolvedReferences = codeClass('UnresolvedReferences', ErrorCode.unresolvedReferences);
/**
 * `entity.delete` refused by a relationship whose delete rule is deny
 * (anywhere in the cascade); nothing was deleted. `data: {entity, id, relationship, related}`.
 */
export const DeleteDenied = codeClass('DeleteDenied', ErrorCode.deleteDenied);
/**
 * A record new to the store lacks required attributes (an existing record may
 * be updated partially); nothing was written. `data: {entity, id, missing}` (JSON keys).
 */
export const IncompleteRecord = codeClass('IncompleteRecord', ErrorCode.incompleteRecord);
/**
 * `cache.getOrFetch` could not get a value: every attempt of the fetch failed
 * (or the client declared no fetch capability) and there was no fallback, or
 * the fallback failed too. `data: {attempts, lastError: {code, message},
 * fallbackError?, remembered?}`.
 */
export const FetchFailed = codeClass('FetchFailed', ErrorCode.fetchFailed);

/**
 * An encrypted cache cannot be used with the keys this session holds;
 * nothing was read or written. `reason` says why: 'keyRequired' (no key for
 * the cache: give `encryptionKey`, `encryptionKeys` or `keyFile`),
 * 'keyMismatch' (not the key its data was sealed under), 'rekeyRunning' (a
 * `cache.rekey` of it is under way: `retryable`, try again once it has
 * answered), 'rekeyInterrupted' (a `cache.rekey` stopped part-way: finish it
 * with the same new key). `data: {cache, reason, retryable?}`.
 */
export class EncryptionKeyError extends LarderError {
  static code = ErrorCode.encryptionKey;

  constructor(message = 'EncryptionKeyError', data) {
    super(ErrorCode.encryptionKey, message, data);
  }

  /** 'keyRequired', 'keyMismatch', 'rekeyRunning' or 'rekeyInterrupted' (`data.reason`), or undefined. */
  get reason() {
    return typeof this.data?.reason === 'string' ? this.data.reason : undefined;
  }

  /** The encrypted cache (`data.cache`), or undefined. */
  get cache() {
    return typeof this.data?.cache === 'string' ? this.data.cache : undefined;
  }
}
LarderError.register(EncryptionKeyError);

/**
 * A sealed entry of an encrypted cache does not open: its bytes were changed
 * outside Larder, or moved to another key, cache or row. Only that entry is
 * affected (others read as usual; `cache.remove` removes it). `data: {cache,
 * key?}`, no `key` when what failed is a sealed key itself (met while listing
 * keys or evicting).
 */
export class IntegrityError extends LarderError {
  static code = ErrorCode.integrity;

  constructor(message = 'IntegrityError', data) {
    super(ErrorCode.integrity, message, data);
  }

  /** The encrypted cache (`data.cache`), or undefined. */
  get cache() {
    return typeof this.data?.cache === 'string' ? this.data.cache : undefined;
  }

  /** The entry's key (`data.key`), or undefined when it is not known. */
  get key() {
    return typeof this.data?.key === 'string' ? this.data.key : undefined;
  }
}
LarderError.register(IntegrityError);

/**
 * The sidecar process is gone (or never started): every call still waiting,
 * and every later one, rejects with this. `code` is null; `exitCode` and
 * `signal` are the process's, `stderr` the end of what it wrote there.
 */
export class SidecarExited extends LarderError {
  constructor(message, { exitCode = null, signal = null, stderr = '', cause } = {}) {
    super(null, message);
    this.exitCode = exitCode;
    this.signal = signal;
    this.stderr = stderr;
    if (cause !== undefined) this.cause = cause;
  }
}

/**
 * A sidecar of another app version (`spawn`'s `appVersion`) claimed the
 * cache after this one began using it: the cache holds that version's data
 * now, which this sidecar reads as empty and may not write to; nothing was
 * written. Not retryable: a sidecar of this version started anew claims the
 * cache back (wiping it). `data: {cache, appVersion, cacheAppVersion}`.
 */
export class AppVersionSuperseded extends LarderError {
  static code = ErrorCode.appVersionSuperseded;

  constructor(message = 'AppVersionSuperseded', data) {
    super(ErrorCode.appVersionSuperseded, message, data);
  }

  /** The cache (`data.cache`), or undefined. */
  get cache() {
    return typeof this.data?.cache === 'string' ? this.data.cache : undefined;
  }

  /** This sidecar's app version (`data.appVersion`), or undefined. */
  get appVersion() {
    return typeof this.data?.appVersion === 'string' ? this.data.appVersion : undefined;
  }

  /** The version whose data the cache holds (`data.cacheAppVersion`), or undefined. */
  get cacheAppVersion() {
    return typeof this.data?.cacheAppVersion === 'string' ? this.data.cacheAppVersion : undefined;
  }
}
LarderError.register(AppVersionSuperseded);

/**
 * A conditional write's condition did not hold (`ifRevision`: the live entry
 * is at another revision, or there is none; `ifAbsent`: there is a live
 * entry). Nothing was written; in `cache.setMany`, nothing of the call, and
 * `index` names the element. Read the entry again and retry. Also thrown by
 * a transaction's `commit({check: true})` for its first comparison that did
 * not hold (`index`: its place in `compare`), after the transaction's else
 * branch was applied.
 * `data: {key, revision, index?}`, `revision` being the live entry's (null
 * when there is none).
 */
export class ConditionFailed extends LarderError {
  static code = ErrorCode.conditionFailed;

  constructor(message = 'ConditionFailed', data) {
    super(ErrorCode.conditionFailed, message, data);
  }

  /** The entry's key (`data.key`), or undefined. */
  get key() {
    return typeof this.data?.key === 'string' ? this.data.key : undefined;
  }

  /** The live entry's revision now (`data.revision`), or null when there is no live entry. */
  get revision() {
    return Number.isInteger(this.data?.revision) ? this.data.revision : null;
  }

  /** `cache.setMany`: the element whose condition failed; a transaction: the comparison (`data.index`); or undefined. */
  get index() {
    return Number.isInteger(this.data?.index) ? this.data.index : undefined;
  }
}
LarderError.register(ConditionFailed);

/**
 * `cache.increment`, or an `increment` in `cache.transaction`, found a live
 * entry whose value is not a JSON integer within ±(2^53 − 1), or the sum
 * would leave that range. Nothing was written (in a transaction, nothing of
 * it). `data: {key, index?, branch?}`.
 */
export class NotAnInteger extends LarderError {
  static code = ErrorCode.notAnInteger;

  constructor(message = 'NotAnInteger', data) {
    super(ErrorCode.notAnInteger, message, data);
  }

  /** The entry's key (`data.key`), or undefined. */
  get key() {
    return typeof this.data?.key === 'string' ? this.data.key : undefined;
  }

  /** `cache.transaction`: the operation's place in its branch (`data.index`), or undefined. */
  get index() {
    return Number.isInteger(this.data?.index) ? this.data.index : undefined;
  }

  /** `cache.transaction`: `'then'` or `'else'` (`data.branch`), or undefined. */
  get branch() {
    return typeof this.data?.branch === 'string' ? this.data.branch : undefined;
  }
}
LarderError.register(NotAnInteger);

/**
 * `lock.renew` or `lock.release` with a token that is not that of the lease
 * on the name: another holder's, or (renewing) a lease that expired or was
 * released. Nothing was changed; whoever held the lease under the token
 * given no longer does. `data: {name, token}`, `token` being the live
 * lease's now (null when none is).
 */
export class LockNotHeldError extends LarderError {
  static code = ErrorCode.lockNotHeld;

  constructor(message = 'LockNotHeldError', data) {
    super(ErrorCode.lockNotHeld, message, data);
  }

  /** The lock's name (`data.name`), or undefined. */
  get lockName() {
    return typeof this.data?.name === 'string' ? this.data.name : undefined;
  }

  /** The token of the live lease on the name now (`data.token`), or null when nobody holds it. */
  get token() {
    return Number.isInteger(this.data?.token) ? this.data.token : null;
  }
}
LarderError.register(LockNotHeldError);

/**
 * `db.lock(name, ...)` did not get the lease: someone held it (this session
 * too, `heldHere`: leases are not re-entrant) and `wait` ran out. Thrown by
 * the client from `lock.acquire`'s answer `{acquired: false, ...}`; not a
 * protocol error (`code` is null).
 */
export class LockNotAcquired extends LarderError {
  /**
   * @param {string} lockName
   * @param {string} holderExpiresAt
   * @param {boolean} heldHere
   * @param {number} [wait]
   */
  constructor(lockName, holderExpiresAt, heldHere, wait) {
    const holder = heldHere ? 'this session' : 'another holder';
    const waited = wait ? ` after waiting ${wait} s` : '';
    super(null, `lock ${JSON.stringify(lockName)} not acquired${waited}: ${holder} holds it until ${holderExpiresAt} unless renewed`);
    this.lockName = lockName;
    this.holderExpiresAt = holderExpiresAt;
    this.heldHere = heldHere;
  }
}
