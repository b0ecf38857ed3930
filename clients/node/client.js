// `Larder`: one JSON-RPC 2.0 session with a `larder` sidecar. It numbers
// requests, matches answers to them, answers the server's own requests and
// hands out notifications; the bytes are the transport's business.

import { readFileSync } from 'node:fs';
import { CacheMethods, HAS_FALLBACK, NOT_FOUND, REQUEST, TARGET, WARN_FALLBACK } from './cache.js';
import { encryptionParams } from './encryption.js';
import { EntityMethods } from './entities.js';
import { ErrorCode, LarderError } from './errors.js';
import { locks } from './locks.js';
import { DROP, MigrateMethods, ObjectMethods, SchemaMethods } from './objects.js';
import { checkOptions, pick } from './options.js';
import { StoreMethods } from './store.js';
import { Transaction } from './transaction.js';
import { findBinary, Transport } from './transport.js';
import { CacheView } from './view.js';

/** The name this client gives itself in `initialize`. */
export const CLIENT_NAME = 'larder-node';

/** This package's version, sent in `initialize`'s `clientInfo`. */
export const CLIENT_VERSION = (() => {
  try {
    return JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')).version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
})();

const SPAWN_OPTIONS = [
  'store', 'pgSchema', 'pgCoherence', 'memory', 'binary', 'args', 'appVersion', 'events', 'onMigrate', 'migrationCallbacks',
  'clientInfo', 'env', 'cwd', 'framing', 'stderr', 'initialize', 'onError', 'fetcher', 'fallback', 'encryptionKey',
  'encryptionKeys', 'keyFile',
];
const CONSTRUCTOR_OPTIONS = ['framing', 'stderr', 'onError', 'onMigrate'];
const INITIALIZE_OPTIONS = [
  'clientInfo', 'appVersion', 'store', 'pgSchema', 'pgCoherence', 'events', 'migrationCallbacks', 'fetch', 'fallback',
  'encryptionKey', 'encryptionKeys',
];
const CALL_OPTIONS = ['signal', 'onProgress'];

const REQUEST_HEAD = '{"jsonrpc":"2.0","id":';
const RESPONSE_HEAD = REQUEST_HEAD;
const RESULT_MEMBER = ',"result":';

/** Each method's part of a request after the id (`,"method":"cache.get"`), encoded once. */
const methodJSON = new Map();

/**
 * `initialize`'s `store`: `{url}` for a `postgresql://` or `postgres://` URL
 * (the prefixes the sidecar tells a database by), `{path}` for a directory,
 * with `schema` when `pgSchema` is given and `coherence` when `pgCoherence`
 * is. What does not fit (a schema or coherence with a directory, or alone, or
 * a mode the server does not know) is sent as it is, for the server to refuse
 * with InvalidParams.
 */
function storeChoice(store, pgSchema, pgCoherence) {
  const choice = {};
  if (store !== undefined) {
    const text = String(store);
    choice[/^postgres(ql)?:\/\//.test(text) ? 'url' : 'path'] = text;
  }
  if (pgSchema !== undefined) choice.schema = String(pgSchema);
  if (pgCoherence !== undefined) choice.coherence = String(pgCoherence);
  return choice;
}

/**
 * One request as JSON text: a prebuilt envelope around the id and a single
 * JSON.stringify of the params, so nothing is encoded twice.
 */
function encodeRequest(id, method, params) {
  let name = methodJSON.get(method);
  if (name === undefined) {
    if (typeof method !== 'string') throw new TypeError(`method must be a string, not ${typeof method}`);
    name = ',"method":' + JSON.stringify(method);
    if (methodJSON.size < 1000) methodJSON.set(method, name);
  }
  if (params === undefined) return REQUEST_HEAD + id + name + '}';
  const body = JSON.stringify(params);
  if (typeof body !== 'string') throw new TypeError(`params of ${method} cannot be JSON (${typeof params})`);
  return REQUEST_HEAD + id + name + ',"params":' + body + '}';
}

/**
 * The resolve and reject functions of the promise made last: `new
 * Promise(capture)` hands them over without making a closure per call.
 */
let capturedResolve;
let capturedReject;
function capture(resolve, reject) {
  capturedResolve = resolve;
  capturedReject = reject;
}

function toErrorObject(err) {
  if (err instanceof LarderError && typeof err.code === 'number') return err.toJSON();
  const message = err instanceof Error ? err.message : String(err);
  return { code: ErrorCode.internalError, message: `Internal error: ${message}` };
}

function delay(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** A request waiting for its answer. */
class Pending {
  constructor(method, resolve, reject, decode) {
    this.method = method;
    this.resolve = resolve;
    this.reject = reject;
    /** Applied to the result before it resolves the call (or undefined). */
    this.decode = decode;
    /** The call's options, when it had a progress callback or an AbortSignal. */
    this.watch = undefined;
  }
}

/** What a call with options holds on to until its answer. */
class Watch {
  constructor(token, signal, onAbort) {
    /** The `workDoneToken` whose `$/progress` goes to a callback until the answer. */
    this.token = token;
    /** The AbortSignal and its listener, removed once answered. */
    this.signal = signal;
    this.onAbort = onAbort;
  }
}

/** A connection to one `larder` sidecar process. Make one with `Larder.spawn`. */
export class Larder {
  #transport;
  #nextId = 1;
  /** @type {Map<number, Pending>} */
  #pending = new Map();
  #requestHandlers = new Map();
  #eventHandlers = new Map();
  #progress = new Map();
  #closing = null;
  #onError;
  #migrationCallbacks = false;
  #fallback = false;
  /** AbortControllers of the server's requests being answered, by id (aborted by `$/cancelRequest`). */
  #serving = new Map();

  /** Return it from an `onMigrate` handler to delete the object (`{drop: true}`). */
  static DROP = DROP;

  /** Return it from a fetcher or fallback: there is nothing under the key (`{found: false}`). */
  static NOT_FOUND = NOT_FOUND;

  /** What `initialize` answered (serverInfo, protocolVersion, capabilities, store), or null. */
  server = null;
  /** `db.cache.*`: the cache methods. */
  cache;
  /** `db.schema.*`: versioned object types. */
  schema;
  /** `db.object.*`: objects checked against their type and migrated when read. */
  object;
  /** `db.migrate.*`: `migrate.run`. */
  migrate;
  /** `db.entity.*`: entity models kept as tables, filled from JSON records. */
  entity;
  /** `db.store.*`: every cache of the store at once (`store.clear`). */
  store;
  /** `db.lock`: `await db.lock(name, {ttl, wait})` takes a lease renewed until released; `db.lock.acquire/renew/release/list` are `lock.*`. */
  lock;

  /**
   * Starts `larder` and, unless `initialize: false`, initializes it.
   *
   * Options: `store` (a directory, or a PostgreSQL database as a
   * `postgresql://USER@HOST:PORT/DB?OPTIONS` or `postgres://` URL, shared by
   * every sidecar naming the same database and schema; what the URL leaves
   * out comes from libpq's `PG*` environment variables and service file) or
   * `memory: true`; `pgSchema`, the schema of a store on PostgreSQL
   * (`--pg-schema`; the sidecar's default is `larder`), which the sidecar
   * refuses without a `postgresql://` store (this then rejects with
   * SidecarExited, whose message ends with the server's reason);
   * `pgCoherence`, how a sidecar on PostgreSQL learns of other sidecars'
   * writes (`--pg-coherence`: 'strict', the sidecar's default, 'notify' or
   * 'poll'; refused like `pgSchema`, and so is a mode the sidecar does not
   * know); `binary` (else `$LARDER_BIN`, the one packaged in this package,
   * `PATH`: see `findBinary`); `args` (extra command-line arguments); `appVersion`;
   * `events` (ask for every cache event); `onMigrate(params)`: the
   * `migrate.object` handler (see `onMigrate`), registered before
   * `initialize`, which then declares `capabilities.migrationCallbacks`;
   * `migrationCallbacks`: `true` declares it for a handler registered later,
   * `false` never declares it (default: declared exactly when a handler is
   * registered by then); `clientInfo`; `env`; `cwd`; `framing` ('lines' or
   * 'content-length'); `stderr: 'inherit'` to copy the sidecar's stderr to
   * ours; `onError(err)` for errors thrown by event handlers or unmatched
   * messages. Encrypted caches: `encryptionKey` (every encrypted cache's
   * key: 32 bytes as a Buffer or Uint8Array, or their base64) and
   * `encryptionKeys` (`{cache: key}`, overriding it), sent in `initialize`;
   * `keyFile`, a file holding the key, passed as `--key-file` (the server
   * refuses to start when its group or others may read it: then this
   * rejects with SidecarExited, whose message ends with the server's
   * reason). Any other option, or a key that is not 32 bytes, rejects with
   * a TypeError (a RangeError for a key of another length) before the
   * process is started.
   * @param {import('./index.js').SpawnOptions} [options]
   * @returns {Promise<Larder>}
   */
  static async spawn(options = {}) {
    checkOptions('Larder.spawn', options, SPAWN_OPTIONS);
    if (options.store !== undefined && options.memory) throw new TypeError('give store or memory, not both');
    if (options.encryptionKey !== undefined || options.encryptionKeys !== undefined) {
      if (options.initialize === false) {
        throw new TypeError('encryptionKey and encryptionKeys are sent by initialize: with initialize: false, pass them to initialize()');
      }
      encryptionParams(options.encryptionKey, options.encryptionKeys);
    }
    const binary = findBinary(options.binary, { env: options.env ?? process.env });
    const args = [];
    if (options.memory) args.push('--memory');
    else if (options.store !== undefined) args.push('--store', String(options.store));
    if (options.pgSchema !== undefined) args.push('--pg-schema', String(options.pgSchema));
    if (options.pgCoherence !== undefined) args.push('--pg-coherence', String(options.pgCoherence));
    if (options.keyFile !== undefined) args.push('--key-file', String(options.keyFile));
    args.push(...(options.args ?? []).map(String));
    const transport = Transport.spawn(binary, args, {
      env: options.env, cwd: options.cwd, framing: options.framing, stderr: options.stderr,
    });
    const db = new Larder(transport, pick({}, options, ['onError', 'onMigrate']));
    if (options.fetcher !== undefined) db.cache.register('fetcher', '*', options.fetcher);
    if (typeof options.fallback === 'function') db.cache.register('fallback', '*', options.fallback);
    if (options.initialize === false) {
      await transport.started();
      return db;
    }
    try {
      const init = pick({}, options, INITIALIZE_OPTIONS);
      if (typeof init.fallback === 'function') init.fallback = true;
      await db.initialize(init);
    } catch (err) {
      transport.kill();
      await transport.done;
      throw err;
    }
    return db;
  }

  /**
   * Use `Larder.spawn`; this wraps an already started child process (or a
   * Transport). Options: `framing`, `stderr`, `onError`, `onMigrate` (as for
   * `spawn`; `framing` and `stderr` only with a child process).
   * @param {import('node:child_process').ChildProcess | Transport} child
   * @param {{framing?: 'lines' | 'content-length', stderr?: 'inherit' | 'pipe', onError?: (err: unknown) => void, onMigrate?: import('./index.js').MigrateHandler}} [options]
   */
  constructor(child, options = {}) {
    checkOptions('Larder', options, CONSTRUCTOR_OPTIONS);
    this.#onError = options.onError ?? ((err) => process.emitWarning(err));
    this.#transport = child instanceof Transport
      ? child
      : new Transport(child, { framing: options.framing ?? 'lines', stderr: options.stderr });
    this.#transport.onMessage = (text) => this.#receive(text);
    this.#transport.onError = (err) => this.#onError(err);
    this.#transport.onExit = () => this.#failPending();
    this.cache = new CacheMethods(this);
    this.schema = new SchemaMethods(this);
    this.object = new ObjectMethods(this);
    this.migrate = new MigrateMethods(this);
    this.entity = new EntityMethods(this);
    this.store = new StoreMethods(this);
    this.lock = locks(this);
    if (options.onMigrate) this.onMigrate(options.onMigrate);
  }

  /** The transport: the process and its framed pipes. */
  get transport() {
    return this.#transport;
  }

  /** The sidecar's process id. */
  get pid() {
    return this.#transport.pid;
  }

  /** Whether the sidecar process has ended. */
  get exited() {
    return this.#transport.exited;
  }

  /** The last few KB the sidecar wrote to stderr. */
  get stderr() {
    return this.#transport.stderr;
  }

  /**
   * Resolves with `{exitCode, signal}` once the process has ended.
   * @returns {Promise<{exitCode: number | null, signal: string | null}>}
   */
  get done() {
    return this.#transport.done;
  }

  /**
   * Sends `initialize` (then the `initialized` notification) and resolves
   * with its result, also kept as `db.server`. `spawn` does this unless told
   * `initialize: false`. Options: `clientInfo`, `appVersion`, `store` (switch
   * to this store: a directory, sent as `store.path`, or a `postgresql://`
   * URL, sent as `store.url`), `pgSchema` (sent as `store.schema`: the schema
   * of a store on PostgreSQL; the server refuses it with a directory),
   * `pgCoherence` (sent as `store.coherence`: 'strict', 'notify' or 'poll'; the
   * result's `store.coherence` is the mode kept), `events`, `migrationCallbacks` (declare that
   * this client answers `migrate.object`; default: whether `onMigrate` has a
   * handler now), `encryptionKey` and `encryptionKeys` (as for `spawn`).
   * Must be the first request, and is accepted once. Any other option, or a
   * key that is not 32 bytes, rejects with a TypeError or RangeError before
   * anything is sent.
   * @param {import('./index.js').InitializeOptions} [options]
   */
  async initialize(options) {
    let {
      clientInfo, appVersion, store, pgSchema, pgCoherence, events, migrationCallbacks, fetch = true, fallback, encryptionKey,
      encryptionKeys,
    } = checkOptions('initialize', options, INITIALIZE_OPTIONS);
    const params = { clientInfo: clientInfo ?? { name: CLIENT_NAME, version: CLIENT_VERSION } };
    if (appVersion !== undefined) params.appVersion = appVersion;
    if (store !== undefined || pgSchema !== undefined || pgCoherence !== undefined) {
      params.store = storeChoice(store, pgSchema, pgCoherence);
    }
    const encryption = encryptionParams(encryptionKey, encryptionKeys);
    if (encryption !== undefined) params.encryption = encryption;
    migrationCallbacks ??= this.#requestHandlers.has('migrate.object');
    const capabilities = {};
    if (events) capabilities.events = true;
    if (migrationCallbacks) capabilities.migrationCallbacks = true;
    fallback = Boolean(fetch && (fallback ?? this.cache[HAS_FALLBACK]()));
    if (fetch) capabilities.fetch = true;
    if (fallback) capabilities.fallback = true;
    if (Object.keys(capabilities).length > 0) params.capabilities = capabilities;
    this.server = await this.call('initialize', params);
    this.#migrationCallbacks = Boolean(migrationCallbacks);
    this.#fallback = fallback;
    this.notify('initialized', {});
    return this.server;
  }

  /**
   * Whether `initialize` declared `capabilities.migrationCallbacks`: only
   * then does the server ask the `onMigrate` handler.
   */
  get migrationCallbacks() {
    return this.#migrationCallbacks;
  }

  /**
   * Whether `initialize` declared `capabilities.fallback`: only then does the
   * server ask the fallbacks given to `cache.open` (or to `spawn`).
   */
  get fallback() {
    return this.#fallback;
  }

  [WARN_FALLBACK]() {
    if (this.server && !this.#fallback) {
      process.emitWarning(
        'cache.open: this client did not declare capabilities.fallback in initialize, so the server will not ' +
          'call the fallback (pass fallback: true, or a fallback function, to Larder.spawn)',
        { code: 'LARDER_NO_FALLBACK' },
      );
    }
  }

  /** `shutdown`: commits everything; afterwards only `exit` is accepted (`close` does both). */
  async shutdown() {
    await this.call('shutdown');
  }

  // MARK: - Sending

  /**
   * Sends a request and resolves with its result, or rejects with a
   * LarderError (a subclass by code) or SidecarExited.
   *
   * Options: `signal` (an AbortSignal: sends `$/cancelRequest`, the server then
   * answers with RequestCancelled); `onProgress(value)`: adds a
   * `workDoneToken` to params (unless they have one) and calls back with
   * each `$/progress` for it, before the call resolves. Other options throw
   * a TypeError. `params` are sent as given: the server refuses an unknown
   * method with MethodNotFound and an unknown member with InvalidParams,
   * both naming the name most likely meant in `data.suggestion`.
   * @param {string} method
   * @param {object} [params]
   * @param {import('./index.js').CallOptions} [options]
   * @returns {Promise<any>}
   */
  call(method, params, options) {
    if (options === undefined) return this[REQUEST](method, params, undefined);
    const { signal, onProgress } = checkOptions('call', options, CALL_OPTIONS);
    if (this.#transport.exited) return Promise.reject(this.#transport.exitedError());
    const id = this.#nextId++;
    let token;
    if (onProgress) {
      token = params?.workDoneToken ?? `node-${id}`;
      params = { ...(params ?? {}), workDoneToken: token };
    }
    let text;
    try {
      text = encodeRequest(id, method, params);
    } catch (err) {
      return Promise.reject(err);
    }
    const promise = new Promise(capture);
    const pending = new Pending(method, capturedResolve, capturedReject, undefined);
    this.#pending.set(id, pending);
    if (token !== undefined) this.#progress.set(token, onProgress);
    let onAbort;
    if (signal) {
      if (signal.aborted) {
        queueMicrotask(() => this.notify('$/cancelRequest', { id }));
      } else {
        onAbort = () => this.notify('$/cancelRequest', { id });
        signal.addEventListener('abort', onAbort, { once: true });
      }
    }
    if (token !== undefined || onAbort !== undefined) pending.watch = new Watch(token, signal, onAbort);
    this.#transport.send(text);
    return promise;
  }

  /**
   * Used inside the client: `call` without options, where `decode(result)`
   * (if given) is what the call resolves with.
   * @param {string} method
   * @param {object | undefined} params
   * @param {((result: any) => any) | undefined} decode
   * @returns {Promise<any>}
   */
  [REQUEST](method, params, decode) {
    if (this.#transport.exited) return Promise.reject(this.#transport.exitedError());
    const id = this.#nextId++;
    let text;
    try {
      text = encodeRequest(id, method, params);
    } catch (err) {
      return Promise.reject(err);
    }
    const promise = new Promise(capture);
    this.#pending.set(id, new Pending(method, capturedResolve, capturedReject, decode));
    this.#transport.send(text);
    return promise;
  }

  /**
   * Sends a notification (no answer).
   * @param {string} method
   * @param {object} [params]
   */
  notify(method, params) {
    if (this.#transport.exited) return;
    const message = { jsonrpc: '2.0', method };
    if (params !== undefined) message.params = params;
    this.#transport.send(JSON.stringify(message));
  }

  /** `rpc.discover`: the server's OpenRPC description. */
  discover() {
    return this.call('rpc.discover');
  }

  /**
   * Methods under a prefix, for namespaces without their own wrapper:
   * `db.namespace('debug').advanceClock({...})` calls `debug.advanceClock`.
   * @param {string} prefix
   * @returns {Record<string, (params?: object, options?: import('./index.js').CallOptions) => Promise<any>>}
   */
  namespace(prefix) {
    return new Proxy(
      {},
      {
        get: (_, name) =>
          typeof name === 'string' && name !== 'then'
            ? (params, options) => this.call(`${prefix}.${name}`, params, options)
            : undefined,
      },
    );
  }

  /**
   * A view of one cache (and group) with Map-like get/set/delete/has; `ttl` applies to its sets.
   * @param {string} [name]
   * @param {{group?: string, ttl?: number}} [options]
   * @returns {CacheView}
   */
  cacheView(name = 'default', options) {
    const { group = '', ttl } = checkOptions('cacheView', options, ['group', 'ttl']);
    return new CacheView(this, name, group, ttl);
  }

  /**
   * A transaction over several keys, to build and then `await
   * txn.commit()` (see Transaction); `cache` and `group` are those of each
   * comparison and operation that names none.
   * @param {{cache?: string, group?: string}} [options]
   * @returns {Transaction}
   */
  transaction(options) {
    return new Transaction(this, pick({}, checkOptions('transaction', options, TARGET), TARGET));
  }

  // MARK: - Receiving

  /**
   * Answers the server's requests for `method`: `fn(params, {id, method})`
   * may be async; what it returns is the result (undefined → null), a
   * LarderError it throws is sent as that error, anything else it throws as
   * -32603. `method` '*' catches requests no other handler takes. Unhandled
   * requests are answered with -32601. Returns a function that removes it.
   * @param {string} method
   * @param {import('./index.js').RequestHandler} fn
   * @returns {() => void}
   */
  onRequest(method, fn) {
    this.#requestHandlers.set(method, fn);
    return () => {
      if (this.#requestHandlers.get(method) === fn) this.#requestHandlers.delete(method);
    };
  }

  /**
   * Answers `migrate.object`: the server asks it for each `{op: 'callback'}`
   * migration step, when an object is read (`object.get`, `describe`,
   * `equals`, `hash`) or during `migrate.run`.
   *
   * `fn(params, {id, method})` gets `{type, key, cache, group, fromVersion,
   * toVersion, value, index?}` (`value` as the earlier steps left it;
   * `index` for an element of an array of objects) and returns (or resolves
   * to) the new value, answered as `{value}`, or `Larder.DROP` to delete the
   * object, or only that element of an array (`{drop: true}`). Throwing answers with an error:
   * the read fails with MigrationFailed and the stored object is left as it
   * was, so a later read asks again. Replaces an earlier handler; returns a
   * function that removes it.
   *
   * The server only asks clients that declared
   * `capabilities.migrationCallbacks` in `initialize`: pass `onMigrate` (or
   * `migrationCallbacks: true`) to `Larder.spawn`, or register the handler
   * before calling `initialize`.
   * @param {import('./index.js').MigrateHandler} fn
   * @returns {() => void}
   */
  onMigrate(fn) {
    if (this.server && !this.#migrationCallbacks) {
      process.emitWarning(
        'onMigrate: this client did not declare capabilities.migrationCallbacks in initialize, so the server will ' +
          'not call the handler (pass onMigrate or migrationCallbacks: true to Larder.spawn)',
        { code: 'LARDER_NO_MIGRATION_CALLBACKS' },
      );
    }
    return this.onRequest('migrate.object', async (params, request) => {
      const result = await fn(params, request);
      return result === DROP ? { drop: true } : { value: result === undefined ? null : result };
    });
  }

  /**
   * Calls `fn(params, method)` for each server notification `name`
   * (`cache.evicted`, `cache.removed`, `cache.cleared`, ...; '*' for all). Returns a function
   * that removes it.
   * @param {string} name
   * @param {(params: any, method: string) => void} fn
   * @returns {() => void}
   */
  onEvent(name, fn) {
    let set = this.#eventHandlers.get(name);
    if (!set) this.#eventHandlers.set(name, (set = new Set()));
    set.add(fn);
    return () => set.delete(fn);
  }

  /**
   * Calls `fn(value)` for each `$/progress` with this token. Returns a function that removes it.
   * @param {string | number} token
   * @param {(value: any, token: string | number) => void} fn
   * @returns {() => void}
   */
  onProgress(token, fn) {
    this.#progress.set(token, fn);
    return () => {
      if (this.#progress.get(token) === fn) this.#progress.delete(token);
    };
  }

  #receive(text) {
    if (this.#settleResult(text)) return;
    let message;
    try {
      message = JSON.parse(text);
    } catch (err) {
      this.#onError(new Error(`larder sent something that is not JSON: ${text.slice(0, 200)}`, { cause: err }));
      return;
    }
    if (Array.isArray(message)) for (const m of message) this.#dispatch(m);
    else this.#dispatch(message);
  }

  /**
   * The common answer, `{"jsonrpc":"2.0","id":N,"result":R}` written in that
   * order with a pending integer id, settles its call from one JSON.parse of
   * R alone; the envelope is read by hand rather than built as an object.
   * Anything else (or R that is not JSON) returns false for #dispatch.
   */
  #settleResult(text) {
    if (!text.startsWith(RESPONSE_HEAD)) return false;
    let at = RESPONSE_HEAD.length;
    let id = 0;
    for (let c = text.charCodeAt(at); c >= 0x30 && c <= 0x39; c = text.charCodeAt(++at)) id = id * 10 + (c - 0x30);
    const digits = at - RESPONSE_HEAD.length;
    // JSON allows no leading zero; past 15 digits an id may not be a safe integer.
    if (digits === 0 || digits > 15 || (digits > 1 && text.charCodeAt(RESPONSE_HEAD.length) === 0x30)) return false;
    if (!text.startsWith(RESULT_MEMBER, at) || text.charCodeAt(text.length - 1) !== 0x7d) return false;
    const pending = this.#pending.get(id);
    if (pending === undefined) return false;
    let result;
    try {
      result = JSON.parse(text.slice(at + RESULT_MEMBER.length, text.length - 1));
    } catch {
      return false;
    }
    this.#pending.delete(id);
    if (pending.watch !== undefined) this.#unwatch(pending.watch);
    pending.resolve(pending.decode === undefined ? result : pending.decode(result));
    return true;
  }

  #dispatch(m) {
    if (m === null || typeof m !== 'object') {
      this.#onError(new Error(`larder sent a message that is not an object: ${JSON.stringify(m)}`));
      return;
    }
    if (m.method === undefined) {
      const pending = this.#pending.get(m.id);
      if (pending === undefined) {
        const what = m.error ? `an error ${JSON.stringify(m.error)}` : 'a response';
        this.#onError(new LarderError(m.error?.code ?? null,
          `larder sent ${what} for no pending request (id ${JSON.stringify(m.id)})`, m.error?.data));
        return;
      }
      this.#pending.delete(m.id);
      if (pending.watch !== undefined) this.#unwatch(pending.watch);
      if (m.error !== undefined) pending.reject(LarderError.fromResponse(m.error));
      else pending.resolve(pending.decode === undefined ? m.result : pending.decode(m.result));
    } else if (typeof m.method === 'string') {
      if ('id' in m) this.#answerRequest(m);
      else this.#handleNotification(m);
    } else {
      this.#onError(new Error(`larder sent a message whose method is not a string: ${JSON.stringify(m).slice(0, 200)}`));
    }
  }

  async #answerRequest(m) {
    const handler = this.#requestHandlers.get(m.method) ?? this.#requestHandlers.get('*');
    let reply;
    if (!handler) {
      reply = { error: { code: ErrorCode.methodNotFound, message: `Method not found: ${m.method}` } };
    } else {
      const controller = new AbortController();
      this.#serving.set(m.id, controller);
      try {
        const result = await handler(m.params, { id: m.id, method: m.method, signal: controller.signal });
        reply = { result: result === undefined ? null : result };
      } catch (err) {
        reply = { error: toErrorObject(err) };
      } finally {
        if (this.#serving.get(m.id) === controller) this.#serving.delete(m.id);
      }
      // The server gave up on it ($/cancelRequest) and would ignore the answer.
      if (controller.signal.aborted) return;
    }
    if (this.#transport.exited) return;
    let text;
    try {
      text = JSON.stringify({ jsonrpc: '2.0', id: m.id, ...reply });
    } catch (err) {
      text = JSON.stringify({ jsonrpc: '2.0', id: m.id, error: toErrorObject(err) });
    }
    this.#transport.send(text);
  }

  #unwatch({ token, signal, onAbort }) {
    if (token !== undefined) this.#progress.delete(token);
    if (onAbort !== undefined) signal.removeEventListener('abort', onAbort);
  }

  #handleNotification(m) {
    if (m.method === '$/cancelRequest') {
      this.#serving.get(m.params?.id)?.abort();
    } else if (m.method === '$/progress') {
      const fn = this.#progress.get(m.params?.token);
      if (fn) this.#safely(fn, m.params.value, m.params.token);
    }
    for (const key of [m.method, '*']) {
      const set = this.#eventHandlers.get(key);
      if (set) for (const fn of [...set]) this.#safely(fn, m.params, m.method);
    }
  }

  #safely(fn, ...args) {
    try {
      const r = fn(...args);
      if (r && typeof r.then === 'function') r.then(undefined, (err) => this.#onError(err));
    } catch (err) {
      this.#onError(err);
    }
  }

  // MARK: - Ending

  #failPending() {
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const p of pending) {
      if (p.watch?.onAbort !== undefined) p.watch.signal.removeEventListener('abort', p.watch.onAbort);
      p.reject(this.#transport.exitedError(p.method));
    }
  }

  /**
   * Kills the sidecar (SIGKILL unless told otherwise) without asking.
   * @param {NodeJS.Signals} [signal]
   */
  kill(signal = 'SIGKILL') {
    this.#transport.kill(signal);
  }

  /**
   * Ends the session politely: `shutdown` (everything is committed), `exit`,
   * closes stdin and waits; kills the process only if it does not end within
   * `timeout` ms. Resolves with `{exitCode, signal}`.
   * @param {{timeout?: number}} [options]
   * @returns {Promise<{exitCode: number | null, signal: string | null}>}
   */
  close(options) {
    const { timeout = 5000 } = checkOptions('close', options, ['timeout']);
    const transport = this.#transport;
    this.#closing ??= (async () => {
      if (!transport.exited) {
        const shutdown = this.call('shutdown').catch(() => {});
        await Promise.race([shutdown, transport.done, delay(timeout)]);
        this.notify('exit');
        transport.end();
        if (!(await Promise.race([transport.done.then(() => true), delay(timeout).then(() => false)]))) {
          transport.kill('SIGTERM');
          if (!(await Promise.race([transport.done.then(() => true), delay(2000).then(() => false)]))) {
            transport.kill('SIGKILL');
          }
        }
      }
      return transport.done;
    })();
    return this.#closing;
  }

  async [Symbol.asyncDispose ?? Symbol.for('Symbol.asyncDispose')]() {
    await this.close();
  }
}
