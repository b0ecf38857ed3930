// Types for the Larder Node.js client. They need nothing from @types/node:
// where Node's own types are meant (Buffer, a child process, an AbortSignal)
// the shape the client relies on is declared here, and with @types/node
// present the full types take their place.

declare global {
  /** Node's Buffer; with @types/node this is its full declaration. */
  interface Buffer extends Uint8Array {}
}

/** Bytes to store: a Buffer, any Uint8Array, or an ArrayBuffer. */
export type Bytes = Uint8Array | ArrayBuffer;

/** A key for encrypted caches: 32 bytes, or their standard base64. */
export type EncryptionKey = Uint8Array | ArrayBuffer | string;

/** Any JSON value. */
export type JSONValue = null | boolean | number | string | JSONValue[] | { [key: string]: JSONValue | undefined };

/** How messages are framed on the pipes. */
export type Framing = 'lines' | 'content-length';

/** What an AbortSignal offers that `call` uses. */
export interface AbortSignalLike {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** What a child process offers that the transport uses (Node's ChildProcess fits). */
export interface ChildProcessLike {
  readonly pid?: number;
  readonly spawnfile: string;
  stdin: any;
  stdout: any;
  stderr: any;
  kill(signal?: string | number): boolean;
  on(event: string, listener: (...args: any[]) => void): this;
  once(event: string, listener: (...args: any[]) => void): this;
}

/** How the process ended. */
export interface ExitStatus {
  exitCode: number | null;
  signal: string | null;
}

/** Which cache and group a call is about (the server defaults to "default" and ""). */
export interface Target {
  cache?: string;
  group?: string;
}

/** Limits of one tier of a cache. */
export interface TierLimits {
  maxCount?: number;
  maxBytes?: number;
}

export interface CacheOpenOptions {
  /**
   * 'cache' (default): purgeable. 'store': durable — entries expire as a cache's do (lifespan, ttl, returnsExpired;
   * touch revives them) but only the client removes them: no disk limits, purge or eviction; fixed at creation.
   */
  kind?: 'cache' | 'store';
  /**
   * false: memory only. Changing it on an existing cache moves the entries: to disk (then evicting down to the disk
   * limits), or the most recently used that fit into memory, deleting the cache's rows (`cache.cleared`, tier disk).
   * A durable store stays persistent (InvalidParams).
   */
  persistent?: boolean;
  memory?: TierLimits;
  disk?: TierLimits;
  /** Seconds an entry lives by default (0: forever). */
  lifespan?: number;
  returnsExpired?: boolean;
  /**
   * Seconds after it expires that an entry is removed in the background; null: at once (never with returnsExpired,
   * nor in a durable store, which refuses any other value).
   */
  purgeExpiredAfter?: number | null;
  /** Keep the entries when an app of another version first uses the cache (default: they are removed). */
  persistsAcrossVersions?: boolean;
  /** Seal keys and values on disk under the session's key; fixed at creation. Without a key: EncryptionKeyError. */
  encrypted?: boolean;
  /** How `getOrFetch` fetches in this cache (sent to the server). */
  fetch?: FetchSettings;
  /** The cache's fetcher, kept in this client, for `getOrFetch` calls without their own; `null` removes it. */
  fetcher?: Fetcher | null;
  /** The cache's fallback, kept in this client; asked only when `initialize` declared `capabilities.fallback`. */
  fallback?: Fallback | null;
}

/** How a fetch is made: `cache.open`'s `fetch`, and `getOrFetch`'s overrides. */
export interface FetchSettings {
  /** Retries after the first attempt. */
  retries?: number;
  /** Delay before a retry, [base, max] in ms. */
  retryDelayMs?: [number, number];
  /** How long one attempt may take, in ms. */
  timeoutMs?: number;
  /** Seconds a fetched entry lives (null: the cache's lifespan). */
  ttl?: number | null;
  /** Seconds a failure (or nothing found) is remembered. */
  negativeTtl?: number;
  /** Seconds past expiry an entry is still answered while one fetch refreshes it. */
  staleWhileRevalidate?: number;
  /**
   * Fetch a missing key once between every process and sidecar on the store
   * (a persistent cache's): one asks its fetcher, the others wait for the
   * value it stores and answer it with `fetchedElsewhere`.
   */
  shared?: boolean;
}

export interface GetOrFetchOptions extends Target, FetchSettings {
  /** Aborting it sends `$/cancelRequest` for this call (the fetch goes on for other callers). */
  signal?: AbortSignalLike;
}

/** What a fetcher is told; set `ttl` (seconds) to give the fetched entry its own lifetime. */
export interface FetchContext {
  cache: string;
  group: string;
  /** 1 for the first attempt, 2 for the first retry, ... */
  attempt: number;
  /** Aborts when the server gives the attempt up (past `timeoutMs`). */
  signal: AbortSignalLike;
  ttl?: number;
}

/** What a fallback is told: the last attempt's error. */
export interface FallbackContext {
  cache: string;
  group: string;
  error: LarderError;
  signal: AbortSignalLike;
  ttl?: number;
}

/**
 * Returns (or resolves to) the value: JSON, bytes (stored as data), or
 * `undefined` / `NOT_FOUND` for nothing. Throwing fails the attempt with the
 * error's integer `code` (else 1) and message.
 */
export type Fetcher = (key: string, context: FetchContext) => unknown;
export type Fallback = (key: string, context: FallbackContext) => unknown;

/** What `getOrFetch` answers: as `get`, with how it came about. */
export interface GetOrFetchResult {
  found: boolean;
  value?: any;
  data?: Buffer;
  expired?: boolean;
  storedAt?: string;
  expiresAt?: string;
  tier?: 'memory' | 'disk';
  /** The entry's revision (changed by every write of it), when found. */
  revision?: number;
  /** For an object: its type and the version it is stored under. */
  type?: string;
  version?: string;
  /** For an array of objects, whose `value` is the array of their values. */
  form?: 'array';
  fetched: boolean;
  stored?: boolean;
  attempts?: number;
  fallback?: boolean;
  revalidating?: boolean;
  remembered?: boolean;
  /** With `shared`: another process or sidecar fetched and stored the value while this call waited. */
  fetchedElsewhere?: boolean;
}

export interface CacheSetOptions extends Target {
  /** Bytes to store instead of a value (then pass `undefined` as the value). */
  data?: Bytes | string;
  /** Seconds to live (0: never expires; default: the cache's lifespan). */
  ttl?: number;
  /** Write only if the live entry is at this revision (else ConditionFailed); not with `ifAbsent`. */
  ifRevision?: number;
  /** Write only if there is no live entry (else ConditionFailed); not with `ifRevision`. */
  ifAbsent?: boolean;
}

/** `cache.remove` and `cache.touch`: only if the live entry is at `ifRevision` (else ConditionFailed). */
export interface RemoveOptions extends Target {
  ifRevision?: number;
}

/** `cache.increment`: `by` defaults to 1, `initial` (where there is no live entry) to 0. */
export interface IncrementOptions extends Target {
  by?: number;
  initial?: number;
  /** Seconds to live, as `set`'s: the lifetime restarts with each increment. */
  ttl?: number;
}

/** One `cache.setMany` entry. */
export interface CacheEntry {
  key: string;
  value?: unknown;
  data?: Bytes | string;
  ttl?: number;
  group?: string;
  ifRevision?: number;
  ifAbsent?: boolean;
}

/** What `cache.get` answers; `data` is decoded to a Buffer. */
export type CacheLookup =
  | { found: false }
  | {
      found: true;
      value?: any;
      data?: Buffer;
      expired: boolean;
      storedAt: string;
      expiresAt?: string;
      tier: 'memory' | 'disk';
      /** The entry's revision: changed by every write of it, never given twice in the store. */
      revision: number;
      /** For an object: its type and the version it is stored under. */
      type?: string;
      version?: string;
      /** For an array of objects, whose `value` is the array of their values. */
      form?: 'array';
    };

/** A comparison of `cache.transaction`: exactly one of `revision`, `absent`, `present`, `value`. */
export type TransactionComparison = Target & { key: string } & (
  | { revision: number }
  | { absent: true }
  | { present: true }
  | { value: unknown }
);

/** An operation of `cache.transaction`, as the protocol spells it (`data` as base64). */
export type TransactionOperation = Target & { key: string } & (
  | { op: 'set'; value?: unknown; data?: string; ttl?: number }
  | { op: 'remove' }
  | { op: 'increment'; by?: number; initial?: number; ttl?: number }
  | { op: 'get' }
);

/** What `db.cache.transaction` sends: each list optional. */
export interface TransactionRequest {
  compare?: TransactionComparison[];
  then?: TransactionOperation[];
  else?: TransactionOperation[];
}

/**
 * What one operation of a transaction answers: a `set` `{revision}`; a
 * `remove` `{removed}`; an `increment` `{value, revision}`; a `get` what
 * `cache.get` answers (`data` as a Buffer). One type whose members are all
 * optional, so `results[i].value` reads whichever operation stands there.
 */
export interface TransactionOperationResult {
  revision?: number;
  removed?: boolean;
  found?: boolean;
  value?: any;
  data?: Buffer;
  expired?: boolean;
  storedAt?: string;
  expiresAt?: string;
  tier?: 'memory' | 'disk';
  type?: string;
  version?: string;
  form?: 'array';
}

/** The first comparison that did not hold: its place in `compare`, its key, and the live entry's revision now (null: none). */
export interface TransactionFailure {
  index: number;
  key: string;
  revision: number | null;
}

/** What a transaction answers: whether every comparison held, each result of the branch applied, in order, and (only when not) the first comparison that did not. */
export interface TransactionResult {
  succeeded: boolean;
  results: TransactionOperationResult[];
  failed?: TransactionFailure;
}

interface ObjectPutCommon extends Target {
  type: string;
  /** A registered version of `type` to write instead of the newest (an old-version object, on purpose). */
  version?: string;
  ttl?: number;
  /** As `cache.set`'s: write only at this entry revision, or only where there is none. */
  ifRevision?: number;
  ifAbsent?: boolean;
}

/** `value` (one object) or `values` (an array of objects of `type` under one key), not both. */
export type ObjectPutOptions =
  | (ObjectPutCommon & { value: unknown; values?: undefined })
  | (ObjectPutCommon & { values: Iterable<unknown>; value?: undefined });

export type ObjectSubject =
  | string
  | { type: string; value: unknown }
  | { type: string; values: Iterable<unknown> }
  | { key: string; cache?: string; group?: string };

/**
 * What `object.get` answers: only `found` when there is nothing; `dropped`
 * when `onMigrate` dropped the object; `value` for one object; `form:
 * 'array'` with `values` for an array of objects.
 */
export interface ObjectRead {
  found: boolean;
  type?: string;
  version?: string;
  value?: any;
  form?: 'array';
  values?: any[];
  migratedFrom?: string;
  /** The entry's revision after this read (a migration written back gives it a new one); not the object's version. */
  revision?: number;
  dropped?: boolean;
  /** Indices, in the array as stored, of the elements `onMigrate` dropped. */
  droppedElements?: number[];
}

/** What `object.put` and `object.copy` add for an array of objects. */
export interface ArrayForm {
  form?: 'array';
  count?: number;
}

export interface GroupCount {
  group: string;
  count: number;
}

export interface StoreClearResult {
  removed: number;
  caches: Array<{ cache: string; removed: number }>;
}

/** `lock.acquire`: acquired, with the lease's fencing token, or not, with the holder's expiry. */
export type LockAcquireResult =
  | { acquired: true; token: number; expiresAt: string }
  | { acquired: false; holderExpiresAt: string; heldHere: boolean };

/** A live lease, as `lock.list` gives it. */
export interface LockInfo {
  name: string;
  token: number;
  expiresAt: string;
  /** Whether this session holds it. */
  heldHere: boolean;
}

/** The store's budget (`--max-store-bytes`) and the bytes it holds. */
export interface StoreBudget {
  maxBytes: number;
  bytes: number;
  exceeded: boolean;
}

/** A cache's settings, as `cache.open` and `cache.list` answer them. */
export interface CacheConfig {
  persistent: boolean;
  memory: Required<TierLimits>;
  disk: Required<TierLimits>;
  lifespan: number;
  returnsExpired: boolean;
  fetch: Required<FetchSettings>;
  kind: 'cache' | 'store';
  persistsAcrossVersions: boolean;
  purgeExpiredAfter: number | null;
  encrypted: boolean;
}

/** What `cache.open` answers; `storeBudget` when the server runs with `--max-store-bytes`. */
export interface CacheOpenResult {
  cache: string;
  created: boolean;
  config: CacheConfig;
  storeBudget?: StoreBudget;
}

export interface TierStats {
  count: number;
  bytes: number;
  hits: number;
  misses: number;
  evictions: number;
}

/** What `cache.stats` answers; `storeBudget` when the server runs with `--max-store-bytes`. */
export interface CacheStats {
  cache: string;
  memory: TierStats;
  disk: TierStats;
  storeBudget?: StoreBudget;
}

export interface CacheSummary {
  name: string;
  config: CacheConfig;
  count: number;
  bytes: number;
}

/** A JSON-RPC error object, as a result or a server request carries it. */
export interface ResponseError {
  code: number;
  message: string;
  data?: any;
}

/** One step of a migration: `op` says which, and which other members it has. */
export interface MigrationStep {
  op: string;
  from?: string;
  to?: string;
  field?: string;
  value?: any;
}

export interface Migration {
  from: string | string[];
  steps: MigrationStep[];
}

/** A schema as registered. */
export interface SchemaDefinition {
  type: string;
  version: string;
  fields: Record<string, any>;
  parent?: string;
  extensions?: Record<string, Record<string, any>>;
  migrations?: Migration[];
}

export interface SchemaSummary {
  type: string;
  versions: string[];
  newest: string;
  /** The newest version's parent. */
  parent?: string;
}

export interface MigrationFailure {
  key: string;
  error: ResponseError;
  group?: string;
  cache?: string;
  type?: string;
  fromVersion?: string;
  /** For an element of an array of objects. */
  index?: number;
}

/** What `migrate.run` answers. */
export interface MigrationCounts {
  examined: number;
  migrated: number;
  upToDate: number;
  failed: number;
  dropped: number;
  failures: MigrationFailure[];
}

/** A model as `entity.models` answers it. */
export interface ModelDefinition {
  model: string;
  casing: 'camelCase' | 'snake_case';
  dateFormat: 'iso8601' | 'iso8601Basic' | 'epochSeconds';
  reservedWords: string[];
  entities: EntityDefinition[];
  encrypted?: false;
}

/** What `entity.apply` and `entity.upsert` answer. */
export interface ApplyResult {
  inserted: number;
  updated: number;
  linked: number;
  unresolved: number;
}

/** What `entity.define` answers. */
export interface DefineResult {
  model: string;
  created: boolean;
  /** Entities that got a table. */
  newEntities: string[];
  /** `Entity.member` for each attribute, then each relationship, added to an entity that existed. */
  added: string[];
}

/** What `initialize` answers. */
export interface InitializeResult {
  serverInfo: { name: 'larder'; version: string };
  protocolVersion: string;
  capabilities: {
    methods: string[];
    framing: Framing[];
    limits: { maxMessageBytes: number; maxDepth: number };
  };
  /** `path` null for a memory-only store; `coherence` for a store on PostgreSQL. */
  store: { path: string | null; persistent: boolean; maxBytes?: number; coherence?: PgCoherence };
  appVersion?: string;
  previousAppVersion?: string;
}

/** `cache.evicted` and `cache.removed`: with a subscription made `withValues`, the entry (`data` as base64). */
export interface CacheEntryEvent {
  cache: string;
  group: string;
  key: string;
  value?: any;
  data?: string;
  type?: string;
  version?: string;
  form?: 'array';
}

export interface EvictedEvent extends CacheEntryEvent {
  tier: 'memory' | 'disk';
  reason: 'capacity' | 'expired' | 'storeBudget';
}

export interface RemovedEvent extends CacheEntryEvent {
  tier: 'all';
  reason: 'removed';
}

/**
 * `cache.cleared`: `group` absent when every group went; `kind` when
 * `store.clear` took only objects or only plain entries; `reason`, `from` and
 * `to` when an app of another version first used the cache.
 */
export interface ClearedEvent {
  cache: string;
  group?: string;
  tier: 'memory' | 'disk' | 'all';
  kind?: 'objects' | 'caches';
  reason?: 'appVersion';
  from?: string;
  to?: string;
}

/** A `$/progress` value: `begin` (with `title`), `report` or `end`. */
export interface ProgressValue {
  kind: 'begin' | 'report' | 'end';
  title?: string;
  cancellable?: boolean;
  percentage?: number;
  message?: string;
}

/** `migrate.object`: `index` only for an element of an array of objects, its index as stored. */
export interface MigrateObjectParams {
  type: string;
  key: string;
  cache: string;
  group: string;
  fromVersion: string;
  toVersion: string;
  value: Record<string, any>;
  index?: number;
}

/** The params of each notification the server sends (`onEvent`). */
export interface ServerNotifications {
  'cache.evicted': EvictedEvent;
  'cache.removed': RemovedEvent;
  'cache.cleared': ClearedEvent;
  '$/progress': { token: string | number; value: ProgressValue };
  /** The id of a request of the server's that it gave up. */
  '$/cancelRequest': { id: string };
}

/** The params of each request the server sends (`onRequest`). */
export interface ServerRequests {
  'migrate.object': MigrateObjectParams;
  /** `attempt` counts from 1. */
  'cache.fetch': { cache: string; group: string; key: string; attempt: number };
  /** The last attempt's error. */
  'cache.fallback': { cache: string; group: string; key: string; error: ResponseError };
}

/** Everything the server sends of its own: openrpc.json's x-notifications and x-server-requests. */
export interface ServerMessages extends ServerNotifications, ServerRequests {}

export interface SchemaRegisterOptions {
  parent?: string;
  extensions?: Record<string, Record<string, unknown>>;
  migrations?: Array<{ from: string | string[]; steps: Array<Record<string, unknown>> }>;
}

export interface CacheRekeyOptions {
  /** Entries per batch and per transaction (server default 500). */
  batchSize?: number;
  workDoneToken?: string | number;
  /** Receives each `$/progress` value: begin, a report per full batch, end. */
  onProgress?: (value: any) => void;
}

/** What `cache.rekey` answers. */
export interface RekeyResult {
  cache: string;
  /** Entries this call re-sealed. */
  resealed: number;
  /** It finished a rekey stopped part-way. */
  resumed: boolean;
}

export interface MigrateRunOptions {
  type?: string;
  cache?: string;
  dryRun?: boolean;
  batchSize?: number;
  onFailure?: 'keep' | 'drop';
  workDoneToken?: string | number;
  onProgress?: (value: any) => void;
  signal?: AbortSignalLike;
}

export interface EntityDefinition {
  name: string;
  identifier?: string;
  attributes: Record<string, string | { optional: string }>;
  relationships?: Array<{
    name: string;
    destination: string;
    toMany?: boolean;
    inverse?: string;
    deleteRule?: 'nullify' | 'cascade' | 'deny';
  }>;
}

export interface ModelOptions {
  casing?: 'camelCase' | 'snake_case';
  dateFormat?: 'iso8601' | 'iso8601Basic' | 'epochSeconds';
  reservedWords?: string[];
  /** Entities are never encrypted: the server refuses `true`, saying why. */
  encrypted?: false;
}

export type Where = Record<string, unknown>;

export interface QueryOptions {
  where?: Where;
  orderBy?: string | string[];
  limit?: number;
  offset?: number;
  include?: string | string[];
}

export interface CallOptions {
  /** Aborting it sends `$/cancelRequest`; the call then rejects with RequestCancelled. */
  signal?: AbortSignalLike;
  /** Receives each `$/progress` value for the call's `workDoneToken`. */
  onProgress?: (value: any) => void;
}

/**
 * How a sidecar on PostgreSQL learns of other sidecars' writes before
 * answering from its memory tiers: `strict` reads the store's commit count at
 * the start of each burst of input (one round trip; never stale after another
 * sidecar's acknowledged write), `notify` listens for PostgreSQL's
 * notifications (no round trip; stale for at most a notification's delay),
 * `poll` reads the count at most every 50 ms (for servers and proxies without
 * notifications). Writes catch up first in every mode.
 */
export type PgCoherence = 'strict' | 'notify' | 'poll';

export interface InitializeOptions {
  clientInfo?: { name: string; version?: string };
  appVersion?: string;
  /**
   * The store: a directory, or a PostgreSQL database as a
   * `postgresql://USER@HOST:PORT/DB?OPTIONS` (or `postgres://`) URL, shared by
   * every sidecar naming the same database and schema (`initialize` switches
   * to it; `spawn` passes it as `--store`).
   */
  store?: string;
  /**
   * The schema of a store on PostgreSQL (`--pg-schema`, `initialize`'s
   * `store.schema`; default `larder`); refused without a `postgresql://` store.
   */
  pgSchema?: string;
  /**
   * How a store on PostgreSQL learns of other sidecars' writes
   * (`--pg-coherence`, `initialize`'s `store.coherence`; default `strict`);
   * refused without a `postgresql://` store. `initialize`'s result tells the
   * mode kept (`notify` falls back to `poll` where the server cannot LISTEN).
   */
  pgCoherence?: PgCoherence;
  /** Ask for every cache event. */
  events?: boolean;
  /** Declare that this client answers `migrate.object`. */
  migrationCallbacks?: boolean;
  /** Declare `capabilities.fetch` (default true). */
  fetch?: boolean;
  /** Declare `capabilities.fallback` (default: whether a fallback is registered by then). */
  fallback?: boolean;
  /** The key of every encrypted cache (never stored by the server). */
  encryptionKey?: EncryptionKey;
  /** Keys of named caches, overriding `encryptionKey`. */
  encryptionKeys?: Record<string, EncryptionKey> | Map<string, EncryptionKey>;
}

export interface SpawnOptions extends Omit<InitializeOptions, 'fallback'> {
  /** The fetcher for every cache without its own. */
  fetcher?: Fetcher;
  /** A fallback for every cache without its own (then declared), or `true` to declare `capabilities.fallback` for fallbacks given to `cache.open` later. */
  fallback?: Fallback | boolean;
  memory?: boolean;
  /** The larder executable (else `$LARDER_BIN`, `bin/larder` in this package, `PATH`). */
  binary?: string;
  args?: Array<string | number>;
  onMigrate?: MigrateHandler;
  env?: Record<string, string | undefined>;
  cwd?: string;
  framing?: Framing;
  stderr?: 'inherit' | 'pipe';
  /** `false`: start the process without sending `initialize`. */
  initialize?: boolean;
  /** A file holding the key (32 bytes or their base64), passed as `--key-file`; it must not be readable by group or others. */
  keyFile?: string;
  onError?: (err: unknown) => void;
}

/** `{id, method, signal}` of a request from the server; `signal` aborts on `$/cancelRequest`. */
export interface ServerRequest {
  id: string | number;
  method: string;
  signal: AbortSignalLike;
}

export type RequestHandler = (params: any, request: ServerRequest) => unknown;

/** Returns the migrated value, or DROP to delete the object; throwing refuses. */
export type MigrateHandler = (params: MigrateObjectParams, request: ServerRequest) => unknown;

/** The name this client gives itself in `initialize`. */
export const CLIENT_NAME: string;
/** This package's version. */
export const CLIENT_VERSION: string;
/** Where a larder executable may be shipped inside this package (`bin/larder`). */
export const PACKAGED_BINARY: string;

/**
 * The larder executable: `binary`, else `$LARDER_BIN`, else `bin/larder` in
 * this package, else `larder` on `PATH`. Throws an Error with `code: 'ENOENT'`
 * naming every place tried when there is none.
 */
export function findBinary(binary?: string, options?: { env?: Record<string, string | undefined> }): string;

/** What an `onMigrate` handler returns to delete the object. */
export const DROP: unique symbol;

/** What a fetcher or fallback returns when there is nothing under the key. */
export const NOT_FOUND: unique symbol;

export interface TransportOptions {
  framing?: Framing;
  stderr?: 'inherit' | 'pipe';
  onMessage?: (text: string) => void;
  onError?: (err: Error) => void;
  onExit?: (status: ExitStatus) => void;
}

/** A running larder process and its framed pipes; sends and reads message bodies. */
export class Transport {
  static spawn(
    binary: string,
    args: string[],
    options?: TransportOptions & { env?: Record<string, string | undefined>; cwd?: string },
  ): Transport;
  constructor(child: ChildProcessLike, options?: TransportOptions);
  onMessage: (text: string) => void;
  onError: (err: Error) => void;
  onExit: (status: ExitStatus) => void;
  readonly framing: Framing;
  readonly pid: number | undefined;
  readonly exited: boolean;
  readonly stderr: string;
  readonly done: Promise<ExitStatus>;
  started(): Promise<void>;
  /** Queues one message body; what is queued leaves in one write once the pipe has drained. */
  send(text: string): void;
  flush(): void;
  end(): void;
  kill(signal?: string): void;
  exitedError(method?: string): SidecarExited;
}

export class CacheMethods {
  constructor(db: Larder);
  open(name?: string, options?: CacheOpenOptions): Promise<CacheOpenResult>;
  /** Registers a fetcher or fallback for one cache ('*': every cache without its own); undefined/null removes it. */
  register(kind: 'fetcher' | 'fallback', cache: string, fn: Fetcher | Fallback | undefined | null): void;
  /**
   * The entry, or on a miss what the fetcher (else the cache's, else the
   * spawn option's) returns, stored. Rejects with FetchFailed when every
   * attempt failed and no fallback answered; a fetched value JSON cannot
   * hold rejects with a TypeError.
   */
  getOrFetch(key: string, fetcher?: Fetcher | null, options?: GetOrFetchOptions): Promise<GetOrFetchResult>;
  getOrFetch(key: string, options: GetOrFetchOptions): Promise<GetOrFetchResult>;
  /** Stores `value` (bytes as bytes) or `options.data`; a value JSON cannot hold throws a TypeError. */
  set(key: string, value: unknown, options?: CacheSetOptions): Promise<{ stored: true; size: number; revision: number }>;
  get(key: string, options?: Target): Promise<CacheLookup>;
  getMany(keys: Iterable<string>, options?: Target): Promise<{ entries: Record<string, CacheLookup> }>;
  setMany(
    entries: CacheEntry[] | Map<string, unknown> | Record<string, unknown>,
    options?: Target & { ttl?: number },
  ): Promise<{ stored: number; size: number; revisions: number[] }>;
  has(key: string, options?: Target): Promise<{ found: boolean; valid: boolean }>;
  remove(key: string, options?: RemoveOptions): Promise<{ removed: boolean }>;
  /** Adds `by` to the integer under `key` atomically; NotAnInteger when the live value is not an integer. */
  increment(key: string, options?: IncrementOptions): Promise<{ value: number; revision: number }>;
  /** `increment` by `-by`. */
  decrement(key: string, options?: IncrementOptions): Promise<{ value: number; revision: number }>;
  /** `revived`: it had expired but was still stored, and is valid again. The revision is kept. */
  touch(key: string, options?: RemoveOptions): Promise<{ found: boolean; revived?: true }>;
  keys(options?: Target & { prefix?: string; limit?: number; cursor?: string }): Promise<{ keys: string[]; cursor?: string }>;
  iterKeys(options?: Target & { prefix?: string; pageSize?: number }): AsyncGenerator<string>;
  /** The groups with their entry counts; `prefix: 'a.'` for the sub-groups of `a`. */
  groups(options?: { cache?: string; prefix?: string; limit?: number; cursor?: string }): Promise<{ groups: GroupCount[]; cursor?: string }>;
  iterGroups(options?: { cache?: string; prefix?: string; pageSize?: number }): AsyncGenerator<GroupCount>;
  clear(options?: Target & { tier?: 'memory' | 'disk' | 'all' }): Promise<{ removed: number }>;
  purgeExpired(options?: Target): Promise<{ removed: number }>;
  stats(options?: { cache?: string }): Promise<CacheStats>;
  list(): Promise<{ caches: CacheSummary[] }>;
  drop(name: string): Promise<{ dropped: true }>;
  /** Re-seals an encrypted cache under a new key; a key that is not 32 bytes rejects with a TypeError or RangeError. */
  rekey(name: string, key: EncryptionKey, options?: CacheRekeyOptions): Promise<RekeyResult>;
  subscribe(name?: string | { cache?: string; withValues?: boolean }, options?: { withValues?: boolean }): Promise<{ subscribed: string }>;
  /** `cache.transaction` from its elements as the protocol spells them; `db.transaction()` builds them. */
  transaction(request: TransactionRequest): Promise<TransactionResult>;
}

/** One branch of a Transaction: the operations applied, in order, when it is chosen; each returns the branch. */
export class TransactionBranch {
  protected constructor();
  /** `{revision}`: the entry's new revision. */
  set(key: string, value: unknown, options?: Target & { data?: Bytes | string; ttl?: number }): this;
  /** `{removed}`: whether there was an entry. */
  remove(key: string, options?: Target): this;
  /** `{value, revision}`; NotAnInteger (`index`, `branch`) rejects the whole transaction. */
  increment(key: string, options?: IncrementOptions): this;
  /** `increment` by `-by`. */
  decrement(key: string, options?: IncrementOptions): this;
  /** What `cache.get` answers, after the operations before it. */
  get(key: string, options?: Target): this;
}

/** A transaction being built by `db.transaction()`: comparisons, the operations applied when they all hold, `else` those applied otherwise. */
export class Transaction extends TransactionBranch {
  private constructor();
  /** The operations applied when a comparison does not hold. */
  readonly else: TransactionBranch;
  /** Holds when the live entry is at `revision`; null holds when there is none (as `ifAbsent`). */
  ifRevision(key: string, revision: number | null, options?: Target): this;
  /** Holds when there is no live entry. */
  ifAbsent(key: string, options?: Target): this;
  /** Holds when there is a live entry. */
  ifPresent(key: string, options?: Target): this;
  /** Holds when the live entry's JSON value equals `value`; an entry of bytes, or none, never does. */
  ifValue(key: string, value: unknown, options?: Target): this;
  /** Sends it; `check: true` rejects with ConditionFailed instead of resolving `succeeded: false`. */
  commit(options?: { check?: boolean }): Promise<TransactionResult>;
}

export class CacheView {
  constructor(db: Larder, name?: string, group?: string, ttl?: number);
  name: string;
  group: string;
  ttl: number | undefined;
  get(key: string): Promise<any>;
  entry(key: string): Promise<CacheLookup>;
  set(key: string, value: unknown, options?: { ttl?: number }): Promise<this>;
  delete(key: string): Promise<boolean>;
  has(key: string): Promise<boolean>;
  touch(key: string): Promise<boolean>;
  getMany(keys: Iterable<string>): Promise<Map<string, any>>;
  setMany(entries: Map<string, unknown> | Record<string, unknown>, options?: { ttl?: number }): Promise<any>;
  keys(options?: { prefix?: string; pageSize?: number }): AsyncGenerator<string>;
  entries(options?: { prefix?: string; pageSize?: number }): AsyncGenerator<[string, any]>;
  clear(options?: { tier?: 'memory' | 'disk' | 'all' }): Promise<number>;
  stats(): Promise<any>;
  [Symbol.asyncIterator](): AsyncGenerator<string>;
}

export class SchemaMethods {
  constructor(db: Larder);
  register(
    type: string,
    version: string,
    fields: Record<string, unknown>,
    options?: SchemaRegisterOptions,
  ): Promise<{ type: string; version: string; created: boolean }>;
  get(type: string, options?: { version?: string }): Promise<{ schema: SchemaDefinition; versions: string[] }>;
  list(): Promise<{ types: SchemaSummary[] }>;
  /** `removed`: how many versions went. */
  remove(type: string): Promise<{ removed: number }>;
  /** `category` null, undefined or '' is the unnamed category. */
  extend(type: string, category: string | null | undefined, fields: Record<string, unknown>): Promise<{ schema: SchemaDefinition }>;
}

export class ObjectMethods {
  constructor(db: Larder);
  put(key: string, options: ObjectPutOptions): Promise<{ stored: boolean; type: string; version: string; revision: number } & ArrayForm>;
  get(key: string, options?: Target & { type?: string }): Promise<ObjectRead>;
  /** `{description}`: `{'*Type': {...}}`, or an array of them for an array of objects. */
  describe(what: ObjectSubject, options?: Target): Promise<{ description: Record<string, any> | Array<Record<string, any>> }>;
  equals(a: ObjectSubject, b: ObjectSubject, options?: Target): Promise<{ equal: boolean }>;
  hash(what: ObjectSubject, options?: Target): Promise<{ hash: string; algorithm: string }>;
  copy(key: string, toKey: string, options?: Target & { toCache?: string; toGroup?: string }): Promise<{ copied: true; type: string; version: string } & ArrayForm>;
}

export class StoreMethods {
  constructor(db: Larder);
  /** Every cache at once: 'objects' (HMCache's +clearCache), 'caches' (plain entries) or 'all'; durable stores only with includeStores. */
  clear(options?: { kind?: 'all' | 'objects' | 'caches'; includeStores?: boolean }): Promise<StoreClearResult>;
}

/** `db.lock.*`: leases on names (SPEC 6.13). */
export class LockMethods {
  constructor(db: Larder);
  /** Takes the lease on `name` for `ttl` seconds if nobody holds it; with `wait`, waits up to that many seconds for it. */
  acquire(name: string, options: { ttl: number; wait?: number }): Promise<LockAcquireResult>;
  /** Extends the live lease `token` to `ttl` seconds from now; LockNotHeldError when it is not the live lease's. */
  renew(name: string, token: number, options: { ttl: number }): Promise<{ token: number; expiresAt: string }>;
  /** Gives the lease back: released false when it had expired or was released already; LockNotHeldError when another lease came after it. */
  release(name: string, token: number): Promise<{ released: boolean }>;
  /** The store's live leases, whoever holds them, by name in byte order. */
  list(options?: { prefix?: string }): Promise<{ locks: LockInfo[] }>;
}

export interface LockOptions {
  /** Seconds the lease lasts unless renewed. */
  ttl: number;
  /** Seconds to wait for a name held by someone else (default: answer at once). */
  wait?: number;
  /** Seconds between renewals: more than 0 and less than ttl (default: ttl / 3). */
  renewEvery?: number;
}

/** A lease taken by `db.lock(name, options)`, renewed by a timer (which does not keep the process alive) until `release()`. */
export class Lease {
  private constructor();
  /** The lock's name. */
  readonly name: string;
  /** The fencing token: send it with every write the lease protects. */
  readonly token: number;
  /** The seconds each renewal asks for. */
  readonly ttl: number;
  /** When the lease expires unless renewed again (ISO 8601, by the store's clock), as last answered. */
  readonly expiresAt: string;
  /** Why the lease was lost, or undefined. */
  readonly error: unknown;
  /** Whether this holder can no longer count on the lease: a renewal was refused, or ttl passed since the last renewal that succeeded. */
  readonly lost: boolean;
  /** Stops renewing and gives the lease back; rejects with `error` when the lease was lost. */
  release(): Promise<void>;
}

/** `db.lock`: called, takes a lease (LockNotAcquired when it is held and `wait` ran out); its members are the `lock.*` methods. */
export interface Locks extends LockMethods {
  (name: string, options: LockOptions): Promise<Lease>;
}

export class MigrateMethods {
  constructor(db: Larder);
  run(options?: MigrateRunOptions): Promise<MigrationCounts>;
}

export class EntityMethods {
  constructor(db: Larder);
  define(model: string, entities: Iterable<EntityDefinition>, options?: ModelOptions): Promise<DefineResult>;
  define(definition: { model: string; entities: EntityDefinition[] } & ModelOptions, options?: ModelOptions): Promise<DefineResult>;
  models(): Promise<{ models: ModelDefinition[] }>;
  stage(entity: string, records: Iterable<Record<string, unknown>>): Promise<{ staged: number; pending: number }>;
  apply(options?: { onMissing?: 'fail' | 'null' }): Promise<ApplyResult>;
  discard(): Promise<{ discarded: number }>;
  upsert(entity: string, records: Iterable<Record<string, unknown>>, options?: { onMissing?: 'fail' | 'null' }): Promise<ApplyResult>;
  get(
    entity: string,
    id: unknown,
    options?: { include?: string | string[] },
  ): Promise<{ found: false } | { found: true; record: Record<string, any> }>;
  getMany(entity: string, ids: Iterable<unknown>, options?: { include?: string | string[] }): Promise<{ records: any[]; missing: unknown[] }>;
  query(entity: string, options?: QueryOptions): Promise<{ records: any[]; nextOffset?: number }>;
  iterQuery(entity: string, options?: Omit<QueryOptions, 'limit'> & { pageSize?: number }): AsyncGenerator<any>;
  count(entity: string, options?: { where?: Where }): Promise<{ count: number }>;
  delete(entity: string, id: unknown): Promise<{ deleted: number; nullified: number }>;
  /** The record in the model's names and RFC 3339 dates, as the backend's JSON, whole; nothing is stored. */
  render(entity: string, record: Record<string, unknown>): Promise<{ record: Record<string, any> }>;
  /** The backend's JSON as the model's names and RFC 3339 dates, with the members it has; nothing is stored. */
  parse(entity: string, json: Record<string, unknown>): Promise<{ record: Record<string, any> }>;
}

/** A connection to one larder sidecar process. */
export class Larder {
  static DROP: typeof DROP;
  static NOT_FOUND: typeof NOT_FOUND;
  /** Whether `initialize` declared `capabilities.fallback`. */
  readonly fallback: boolean;
  static spawn(options?: SpawnOptions): Promise<Larder>;
  constructor(
    child: ChildProcessLike | Transport,
    options?: { framing?: Framing; stderr?: 'inherit' | 'pipe'; onError?: (err: unknown) => void; onMigrate?: MigrateHandler },
  );
  /** What `initialize` answered, or null; for a store on PostgreSQL, `store.coherence` is the PgCoherence kept. */
  server: any;
  cache: CacheMethods;
  schema: SchemaMethods;
  object: ObjectMethods;
  migrate: MigrateMethods;
  entity: EntityMethods;
  store: StoreMethods;
  lock: Locks;
  readonly transport: Transport;
  readonly pid: number | undefined;
  readonly exited: boolean;
  readonly stderr: string;
  readonly done: Promise<ExitStatus>;
  readonly migrationCallbacks: boolean;
  initialize(options?: InitializeOptions): Promise<InitializeResult>;
  shutdown(): Promise<void>;
  call(method: string, params?: object, options?: CallOptions): Promise<any>;
  notify(method: string, params?: object): void;
  discover(): Promise<any>;
  namespace(prefix: string): Record<string, (params?: object, options?: CallOptions) => Promise<any>>;
  cacheView(name?: string, options?: { group?: string; ttl?: number }): CacheView;
  /** A transaction over several keys to build and `commit()`; `cache` and `group` are those of each element that names none. */
  transaction(options?: Target): Transaction;
  onRequest<M extends keyof ServerRequests>(method: M, fn: (params: ServerRequests[M], request: ServerRequest) => unknown): () => void;
  onRequest(method: string, fn: RequestHandler): () => void;
  onMigrate(fn: MigrateHandler): () => void;
  onEvent<M extends keyof ServerNotifications>(name: M, fn: (params: ServerNotifications[M], method: M) => void): () => void;
  onEvent(name: string, fn: (params: any, method: string) => void): () => void;
  onProgress(token: string | number, fn: (value: any, token: string | number) => void): () => void;
  kill(signal?: string): void;
  close(options?: { timeout?: number }): Promise<ExitStatus>;
}

/** The error codes the protocol defines. */
export const ErrorCode: {
  readonly parseError: -32700;
  readonly invalidRequest: -32600;
  readonly methodNotFound: -32601;
  readonly invalidParams: -32602;
  readonly internalError: -32603;
  readonly serverNotInitialized: -32002;
  readonly requestCancelled: -32800;
  readonly requestFailed: -32803;
  readonly storeUnavailable: -31000;
  readonly storageFailure: -31001;
  readonly storeLocked: -31002;
  readonly storageUnavailable: -31003;
  readonly storeLost: -31004;
  readonly cacheNotFound: -31010;
  readonly schemaConflict: -31020;
  readonly schemaNotFound: -31021;
  readonly invalidObject: -31022;
  readonly notAnObject: -31023;
  readonly migrationMissing: -31030;
  readonly migrationFailed: -31031;
  readonly entityNotFound: -31040;
  readonly modelConflict: -31041;
  readonly unresolvedReferences: -31042;
  readonly deleteDenied: -31043;
  readonly incompleteRecord: -31044;
  readonly fetchFailed: -31050;
  readonly encryptionKey: -31060;
  readonly integrity: -31061;
  readonly appVersionSuperseded: -31070;
  readonly conditionFailed: -31080;
  readonly notAnInteger: -31081;
  readonly lockNotHeld: -31090;
};

/** An error the server answered (or a handler throws to answer with). */
export class LarderError extends Error {
  constructor(code: number | null, message: string, data?: unknown);
  code: number | null;
  data?: any;
  /** `data.retryable`: the same request may succeed if sent again unchanged (-31003; -31002 on PostgreSQL; -31060 while a rekey runs). */
  readonly retryable: boolean;
  static fromResponse(error: { code?: number; message?: string; data?: unknown }): LarderError;
  static register<T extends { code: number }>(Class: T, code?: number): T;
  toJSON(): { code: number | null; message: string; data?: unknown };
}

/** The class of the errors answered with one code. */
declare class CodeError extends LarderError {
  static code: number;
  constructor(message?: string, data?: unknown);
}

export class ParseError extends CodeError {}
export class InvalidRequest extends CodeError {}
export class MethodNotFound extends CodeError {}
export class InvalidParams extends CodeError {}
export class InternalError extends CodeError {}
export class ServerNotInitialized extends CodeError {}
export class RequestCancelled extends CodeError {}
export class RequestFailed extends CodeError {}
export class StoreUnavailable extends CodeError {}
export class StorageFailure extends CodeError {}
export class StoreLocked extends CodeError {}
/** The PostgreSQL server of a store on PostgreSQL cannot be reached; `retryable`: the sidecar connects again by itself. */
export class StorageUnavailable extends CodeError {}
export class StoreLost extends CodeError {}
export class CacheNotFound extends CodeError {}
export class SchemaConflict extends CodeError {}
export class SchemaNotFound extends CodeError {}
export class InvalidObject extends CodeError {}
export class NotAnObject extends CodeError {}
export class MigrationMissing extends CodeError {}
export class MigrationFailed extends CodeError {}
export class EntityNotFound extends CodeError {}
export class ModelConflict extends CodeError {}
export class UnresolvedReferences extends CodeError {}
export class DeleteDenied extends CodeError {}
export class IncompleteRecord extends CodeError {}
/** `cache.getOrFetch` got no value: `data: {attempts, lastError, fallbackError?, remembered?}`. */
export class FetchFailed extends CodeError {}

/** An encrypted cache cannot be used with this session's keys; nothing was read or written. */
export class EncryptionKeyError extends CodeError {
  /** 'keyRequired', 'keyMismatch', 'rekeyRunning' or 'rekeyInterrupted'. */
  readonly reason: 'keyRequired' | 'keyMismatch' | 'rekeyRunning' | 'rekeyInterrupted' | undefined;
  readonly cache: string | undefined;
}
/** A sealed entry does not open (changed outside Larder, or moved); only that entry is affected. */
export class IntegrityError extends CodeError {
  readonly cache: string | undefined;
  /** The entry's key; undefined when what failed is a sealed key itself. */
  readonly key: string | undefined;
}

/** A sidecar of another app version claimed the cache after this one began using it: it reads as empty here, and takes no write. */
export class AppVersionSuperseded extends CodeError {
  readonly cache: string | undefined;
  /** This sidecar's app version. */
  readonly appVersion: string | undefined;
  /** The version whose data the cache holds. */
  readonly cacheAppVersion: string | undefined;
}

/** A conditional write's condition did not hold; nothing was written (in `setMany`, nothing of the call). */
export class ConditionFailed extends CodeError {
  /** The entry's key (`data.key`). */
  readonly key: string | undefined;
  /** The live entry's revision now, or null when there is none. */
  readonly revision: number | null;
  /** `setMany`: the entry whose condition failed. */
  readonly index: number | undefined;
}

/** `cache.increment` (or a transaction's `increment`) met a value that is not an integer within ±(2^53 − 1), or a sum that would not be; nothing was written. */
export class NotAnInteger extends CodeError {
  /** The entry's key (`data.key`). */
  readonly key: string | undefined;
  /** `cache.transaction`: the operation's place in its branch. */
  readonly index: number | undefined;
  /** `cache.transaction`: the branch, `'then'` or `'else'`. */
  readonly branch: string | undefined;
}

/** A token that is not the lease's on the name: another holder's, or (renewing) a lease that expired or was released; nothing was changed. */
export class LockNotHeldError extends CodeError {
  /** The lock's name (`data.name`). */
  readonly lockName: string | undefined;
  /** The token of the live lease on the name now, or null when nobody holds it. */
  readonly token: number | null;
}

/** `db.lock(name, ...)` did not get the lease: it is held (by this session too, `heldHere`) and `wait` ran out. Not a protocol error. */
export class LockNotAcquired extends LarderError {
  constructor(lockName: string, holderExpiresAt: string, heldHere: boolean, wait?: number);
  code: null;
  readonly lockName: string;
  /** When the holder's lease expires unless renewed (ISO 8601). */
  readonly holderExpiresAt: string;
  readonly heldHere: boolean;
}

/** The sidecar process is gone: every pending and later call rejects with this. */
export class SidecarExited extends LarderError {
  constructor(message: string, options?: { exitCode?: number | null; signal?: string | null; stderr?: string; cause?: unknown });
  code: null;
  exitCode: number | null;
  signal: string | null;
  stderr: string;
}
