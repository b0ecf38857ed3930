// The Node.js client for Larder: spawns the `larder` sidecar and speaks
// JSON-RPC 2.0 with it over stdin/stdout.

import { spawn as spawnProcess } from 'node:child_process';
import { accessSync, constants as fsConstants, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { frame, MessageReader } from './framing.js';
import { CacheNotFound, ErrorCode, LarderError, SidecarExited } from './errors.js';
import { checkOptions } from './options.js';

export * from './errors.js';

const packageVersion = (() => {
  try {
    return JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')).version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
})();

const STDERR_TAIL_BYTES = 8192;

function isExecutable(path) {
  try {
    accessSync(path, fsConstants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The `larder` executable to run: `binary` if given, else `$LARDER_BIN`, else
 * this repository's `.build/release/larder` then `.build/debug/larder`, else
 * `larder` from the PATH.
 */
export function findBinary(binary) {
  if (binary) return String(binary);
  if (process.env.LARDER_BIN) return process.env.LARDER_BIN;
  for (const build of ['release', 'debug']) {
    const candidate = fileURLToPath(new URL(`../../.build/${build}/larder`, import.meta.url));
    if (isExecutable(candidate)) return candidate;
  }
  return 'larder';
}

function isBytes(v) {
  return v instanceof Uint8Array || v instanceof ArrayBuffer;
}

function toBase64(v) {
  if (typeof v === 'string') return v; // already base64
  if (v instanceof ArrayBuffer) return Buffer.from(v).toString('base64');
  if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
  throw new TypeError('data must be a Buffer, Uint8Array, ArrayBuffer or base64 string');
}

/** Puts `value` (JSON, or bytes) or `data` (bytes) on `target` as the protocol wants them. */
function putStored(target, value, data) {
  if (value !== undefined && data !== undefined) throw new TypeError('give value or data, not both');
  if (data !== undefined) target.data = toBase64(data);
  else if (isBytes(value)) target.data = toBase64(value);
  else if (value !== undefined) target.value = value;
  return target;
}

/** A `cache.get` answer with `data` decoded to a Buffer. */
function decodeLookup(r) {
  if (r && typeof r.data === 'string') r.data = Buffer.from(r.data, 'base64');
  return r;
}

/** Copies the defined members of `from` named in `names` onto `to`. */
function pick(to, from, names) {
  if (from) for (const n of names) if (from[n] !== undefined) to[n] = from[n];
  return to;
}

/**
 * What an `onMigrate` handler returns to have the object deleted instead of
 * migrated (answered as `{drop: true}`). Also `Larder.DROP`.
 */
export const DROP = Symbol('larder.DROP');

function toErrorObject(err) {
  if (err instanceof LarderError && typeof err.code === 'number') return err.toJSON();
  const message = err instanceof Error ? err.message : String(err);
  return { code: ErrorCode.internalError, message: `Internal error: ${message}` };
}

/** A connection to one `larder` sidecar process. Make one with `Larder.spawn`. */
export class Larder {
  #child;
  #framing;
  #reader;
  #nextId = 1;
  #pending = new Map();
  #out = [];
  #flushScheduled = false;
  #requestHandlers = new Map();
  #eventHandlers = new Map();
  #progress = new Map();
  #stderrTail = '';
  #exitStatus = null; // {exitCode, signal}
  #gone = null; // {message, exitCode, signal, cause} once the process is gone
  #resolveGone;
  #goneForGood;
  #closing = null;
  #onError;
  #forwardStderr;
  #migrationCallbacks = false;

  /** Return it from an `onMigrate` handler to delete the object (`{drop: true}`). */
  static DROP = DROP;

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

  /**
   * Starts `larder` and, unless `initialize: false`, initializes it.
   *
   * Options: `store` (a directory) or `memory: true`; `binary`; `args` (extra
   * command-line arguments); `appVersion`; `events` (ask for every cache
   * event); `onMigrate(params)`: the `migrate.object` handler (see
   * `onMigrate`), registered before `initialize`, which then declares
   * `capabilities.migrationCallbacks`; `migrationCallbacks`: `true` declares
   * it for a handler registered later, `false` never declares it (default:
   * declared exactly when a handler is registered by then); `clientInfo`;
   * `env`; `cwd`; `framing` ('lines' or 'content-length'); `stderr:
   * 'inherit'` to copy the sidecar's stderr to ours; `onError(err)` for
   * errors thrown by event handlers or unmatched messages. Any other option
   * rejects with a TypeError naming the one most likely meant, before the
   * process is started.
   */
  static async spawn(options = {}) {
    checkOptions('Larder.spawn', options, SPAWN_OPTIONS);
    if (options.store !== undefined && options.memory) throw new TypeError('give store or memory, not both');
    const binary = findBinary(options.binary);
    const args = [];
    if (options.memory) args.push('--memory');
    else if (options.store !== undefined) args.push('--store', String(options.store));
    args.push(...(options.args ?? []).map(String));
    const child = spawnProcess(binary, args, {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: options.env ?? process.env,
      cwd: options.cwd,
    });
    const db = new Larder(child, pick({}, options, CONSTRUCTOR_OPTIONS));
    if (options.initialize === false) {
      await db.#started();
      return db;
    }
    try {
      await db.initialize(pick({}, options, INITIALIZE_OPTIONS));
    } catch (err) {
      db.kill();
      await db.#goneForGood;
      throw err;
    }
    return db;
  }

  /**
   * Use `Larder.spawn`; this wraps an already started child process. Options:
   * `framing`, `stderr`, `onError`, `onMigrate` (as for `spawn`).
   */
  constructor(child, options = {}) {
    checkOptions('Larder', options, CONSTRUCTOR_OPTIONS);
    this.#child = child;
    this.#framing = options.framing ?? 'lines';
    this.#onError = options.onError ?? ((err) => process.emitWarning(err));
    this.#forwardStderr = options.stderr === 'inherit';
    this.#goneForGood = new Promise((resolve) => (this.#resolveGone = resolve));
    this.cache = new CacheMethods(this);
    this.schema = new SchemaMethods(this);
    this.object = new ObjectMethods(this);
    this.migrate = new MigrateMethods(this);
    this.entity = new EntityMethods(this);
    if (options.onMigrate) this.onMigrate(options.onMigrate);
    this.#reader = new MessageReader(
      this.#framing,
      (text) => this.#receive(text),
      (err) => this.#onError(err),
    );
    child.stdout.on('data', (chunk) => this.#reader.push(chunk));
    child.stdout.on('end', () => this.#reader.end());
    child.stderr.on('data', (chunk) => {
      if (this.#forwardStderr) process.stderr.write(chunk);
      this.#stderrTail = (this.#stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL_BYTES);
    });
    child.stdin.on('error', () => {}); // EPIPE: the exit handlers report it
    child.on('error', (err) => {
      this.#markGone({ message: `could not run ${child.spawnfile}: ${err.message}`, cause: err });
    });
    child.on('exit', (exitCode, signal) => {
      this.#exitStatus = { exitCode, signal };
      // 'close' follows once stdout is drained; do not wait for it forever.
      setTimeout(() => this.#markGone({ exitCode, signal }), 500).unref();
    });
    child.on('close', (exitCode, signal) => {
      const s = this.#exitStatus ?? { exitCode, signal };
      this.#markGone(s);
    });
  }

  /** The sidecar's process id. */
  get pid() {
    return this.#child.pid;
  }

  /** Whether the sidecar process has ended. */
  get exited() {
    return this.#gone !== null;
  }

  /** The last few KB the sidecar wrote to stderr. */
  get stderr() {
    return this.#stderrTail;
  }

  /** Resolves with `{exitCode, signal}` once the process has ended. */
  get done() {
    return this.#goneForGood;
  }

  #started() {
    return new Promise((resolve, reject) => {
      if (this.#child.pid !== undefined) return resolve();
      this.#child.once('spawn', resolve);
      this.#goneForGood.then(() => reject(this.#exitedError()));
    });
  }

  /**
   * Sends `initialize` (then the `initialized` notification) and resolves
   * with its result, also kept as `db.server`. `spawn` does this unless told
   * `initialize: false`. Options: `clientInfo`, `appVersion`, `store` (switch
   * to this store directory), `events`, `migrationCallbacks` (declare that
   * this client answers `migrate.object`; default: whether `onMigrate` has a
   * handler now). Must be the first request, and is accepted once. Any other
   * option rejects with a TypeError before anything is sent.
   */
  async initialize(options) {
    let { clientInfo, appVersion, store, events, migrationCallbacks } =
      checkOptions('initialize', options, INITIALIZE_OPTIONS);
    const params = { clientInfo: clientInfo ?? { name: 'larder-node', version: packageVersion } };
    if (appVersion !== undefined) params.appVersion = appVersion;
    if (store !== undefined) params.store = { path: String(store) };
    migrationCallbacks ??= this.#requestHandlers.has('migrate.object');
    const capabilities = {};
    if (events) capabilities.events = true;
    if (migrationCallbacks) capabilities.migrationCallbacks = true;
    if (Object.keys(capabilities).length > 0) params.capabilities = capabilities;
    this.server = await this.call('initialize', params);
    this.#migrationCallbacks = Boolean(migrationCallbacks);
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
   */
  call(method, params, options) {
    const { signal, onProgress } = checkOptions('call', options, ['signal', 'onProgress']);
    if (this.#gone) return Promise.reject(this.#exitedError());
    const id = this.#nextId++;
    let token;
    if (onProgress) {
      token = params?.workDoneToken ?? `node-${id}`;
      params = { ...(params ?? {}), workDoneToken: token };
    }
    const message = { jsonrpc: '2.0', id, method };
    if (params !== undefined) message.params = params;
    let text;
    try {
      text = JSON.stringify(message);
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise((resolve, reject) => {
      let onAbort;
      const settle = () => {
        this.#pending.delete(id);
        if (token !== undefined) this.#progress.delete(token);
        if (onAbort) signal.removeEventListener('abort', onAbort);
      };
      this.#pending.set(id, {
        method,
        resolve: (v) => (settle(), resolve(v)),
        reject: (e) => (settle(), reject(e)),
      });
      if (token !== undefined) this.#progress.set(token, onProgress);
      if (signal) {
        if (signal.aborted) {
          queueMicrotask(() => this.notify('$/cancelRequest', { id }));
        } else {
          onAbort = () => this.notify('$/cancelRequest', { id });
          signal.addEventListener('abort', onAbort, { once: true });
        }
      }
      this.#write(text);
    });
  }

  /** Sends a notification (no answer). */
  notify(method, params) {
    if (this.#gone) return;
    const message = { jsonrpc: '2.0', method };
    if (params !== undefined) message.params = params;
    this.#write(JSON.stringify(message));
  }

  /** `rpc.discover`: the server's OpenRPC description. */
  discover() {
    return this.call('rpc.discover');
  }

  /**
   * Methods under a prefix, for namespaces without their own wrapper:
   * `db.namespace('schema').define({...})` calls `schema.define`.
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

  /** A view of one cache (and group) with Map-like get/set/delete/has; `ttl` applies to its sets. */
  cacheView(name = 'default', options) {
    const { group = '', ttl } = checkOptions('cacheView', options, ['group', 'ttl']);
    return new CacheView(this, name, group, ttl);
  }

  #write(text) {
    this.#out.push(frame(text, this.#framing));
    if (!this.#flushScheduled) {
      this.#flushScheduled = true;
      setImmediate(() => this.#flush());
    }
  }

  /** Everything queued this tick goes out in one write. */
  #flush() {
    this.#flushScheduled = false;
    if (this.#out.length === 0) return;
    const chunk = this.#out.length === 1 ? this.#out[0] : this.#out.join('');
    this.#out = [];
    if (this.#gone || !this.#child.stdin.writable) return;
    this.#child.stdin.write(chunk);
  }

  // MARK: - Receiving

  /**
   * Answers the server's requests for `method`: `fn(params, {id, method})`
   * may be async; what it returns is the result (undefined → null), a
   * LarderError it throws is sent as that error, anything else it throws as
   * -32603. `method` '*' catches requests no other handler takes. Unhandled
   * requests are answered with -32601. Returns a function that removes it.
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
   * toVersion, value}` (`value` as the earlier steps left it) and returns
   * (or resolves to) the new value, answered as `{value}`, or `Larder.DROP`
   * to delete the object (`{drop: true}`). Throwing answers with an error:
   * the read fails with MigrationFailed and the stored object is left as it
   * was, so a later read asks again. Replaces an earlier handler; returns a
   * function that removes it.
   *
   * The server only asks clients that declared
   * `capabilities.migrationCallbacks` in `initialize`: pass `onMigrate` (or
   * `migrationCallbacks: true`) to `Larder.spawn`, or register the handler
   * before calling `initialize`.
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
   * (`cache.evicted`, `cache.cleared`, ...; '*' for all). Returns a function
   * that removes it.
   */
  onEvent(name, fn) {
    let set = this.#eventHandlers.get(name);
    if (!set) this.#eventHandlers.set(name, (set = new Set()));
    set.add(fn);
    return () => set.delete(fn);
  }

  /** Calls `fn(value)` for each `$/progress` with this token. Returns a function that removes it. */
  onProgress(token, fn) {
    this.#progress.set(token, fn);
    return () => {
      if (this.#progress.get(token) === fn) this.#progress.delete(token);
    };
  }

  #receive(text) {
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

  #dispatch(m) {
    if (m === null || typeof m !== 'object') {
      this.#onError(new Error(`larder sent a message that is not an object: ${JSON.stringify(m)}`));
      return;
    }
    if (typeof m.method === 'string') {
      if ('id' in m) this.#answerRequest(m);
      else this.#handleNotification(m);
      return;
    }
    const pending = this.#pending.get(m.id);
    if (!pending) {
      const what = m.error ? `error ${JSON.stringify(m.error)}` : 'response';
      this.#onError(new LarderError(m.error?.code ?? null, `larder sent an ${what} for no pending request (id ${JSON.stringify(m.id)})`, m.error?.data));
      return;
    }
    if (m.error !== undefined) pending.reject(LarderError.fromResponse(m.error));
    else pending.resolve(m.result);
  }

  async #answerRequest(m) {
    const handler = this.#requestHandlers.get(m.method) ?? this.#requestHandlers.get('*');
    let reply;
    if (!handler) {
      reply = { error: { code: ErrorCode.methodNotFound, message: `Method not found: ${m.method}` } };
    } else {
      try {
        const result = await handler(m.params, { id: m.id, method: m.method });
        reply = { result: result === undefined ? null : result };
      } catch (err) {
        reply = { error: toErrorObject(err) };
      }
    }
    if (this.#gone) return;
    let text;
    try {
      text = JSON.stringify({ jsonrpc: '2.0', id: m.id, ...reply });
    } catch (err) {
      text = JSON.stringify({ jsonrpc: '2.0', id: m.id, error: toErrorObject(err) });
    }
    this.#write(text);
  }

  #handleNotification(m) {
    if (m.method === '$/progress') {
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

  #markGone({ exitCode = null, signal = null, message, cause }) {
    if (this.#gone) return;
    this.#gone = { exitCode, signal, message, cause };
    this.#out = [];
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const p of pending) p.reject(this.#exitedError(p.method));
    this.#resolveGone({ exitCode, signal });
  }

  #exitedError(method) {
    const { exitCode, signal, message, cause } = this.#gone ?? {};
    let text = message ?? (signal ? `larder was killed by ${signal}` : `larder exited with code ${exitCode}`);
    if (method) text += ` (while waiting for ${method})`;
    const tail = this.#stderrTail.trim();
    if (tail) text += `\nstderr:\n${tail}`;
    return new SidecarExited(text, { exitCode, signal, stderr: this.#stderrTail, cause });
  }

  /** Kills the sidecar (SIGKILL unless told otherwise) without asking. */
  kill(signal = 'SIGKILL') {
    if (!this.#gone && this.#exitStatus === null) this.#child.kill(signal);
  }

  /**
   * Ends the session politely: `shutdown` (everything is committed), `exit`,
   * closes stdin and waits; kills the process only if it does not end within
   * `timeout` ms. Resolves with `{exitCode, signal}`.
   */
  close(options) {
    const { timeout = 5000 } = checkOptions('close', options, ['timeout']);
    this.#closing ??= (async () => {
      if (!this.#gone) {
        const shutdown = this.call('shutdown').catch(() => {});
        await Promise.race([shutdown, this.#goneForGood, delay(timeout)]);
        this.notify('exit');
        this.#flush();
        if (!this.#gone) this.#child.stdin.end();
        if (!(await Promise.race([this.#goneForGood.then(() => true), delay(timeout).then(() => false)]))) {
          this.#child.kill('SIGTERM');
          if (!(await Promise.race([this.#goneForGood.then(() => true), delay(2000).then(() => false)]))) {
            this.#child.kill('SIGKILL');
          }
        }
      }
      return this.#goneForGood;
    })();
    return this.#closing;
  }

  async [Symbol.asyncDispose ?? Symbol.for('Symbol.asyncDispose')]() {
    await this.close();
  }
}

function delay(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

const SPAWN_OPTIONS = [
  'store', 'memory', 'binary', 'args', 'appVersion', 'events', 'onMigrate', 'migrationCallbacks', 'clientInfo',
  'env', 'cwd', 'framing', 'stderr', 'initialize', 'onError',
];
const CONSTRUCTOR_OPTIONS = ['framing', 'stderr', 'onError', 'onMigrate'];
const INITIALIZE_OPTIONS = ['clientInfo', 'appVersion', 'store', 'events', 'migrationCallbacks'];
const TARGET = ['cache', 'group'];

/**
 * `db.cache.*`: one method per `cache.*` request; results as the server sends
 * them, `data` as Buffers. An option a method does not take throws a
 * TypeError naming the one most likely meant, before anything is sent.
 */
class CacheMethods {
  #db;
  constructor(db) {
    this.#db = db;
  }

  #call(method, params, options) {
    return this.#db.call(method, params, options);
  }

  /**
   * `cache.open`: creates a cache or changes its settings. `memory` and
   * `disk` (`{maxCount?, maxBytes?}`) are sent as given: the server refuses a
   * misspelt limit with InvalidParams (`data: {path: 'params.memory.maxCont',
   * expected, suggestion: 'maxCount'}`) and changes nothing.
   */
  open(name = 'default', options) {
    const known = ['persistent', 'memory', 'disk', 'lifespan', 'returnsExpired'];
    return this.#call('cache.open', pick({ cache: name }, checkOptions('cache.open', options, known), known));
  }

  /** `cache.set`: `value` (JSON; a Buffer becomes data) or `data` (bytes), `ttl` in seconds. */
  set(key, options) {
    const { value, data, ttl, cache, group } = checkOptions('cache.set', options, ['value', 'data', 'ttl', ...TARGET]);
    const params = putStored({ key }, value, data);
    return this.#call('cache.set', pick(params, { ttl, cache, group }, ['ttl', ...TARGET]));
  }

  /** `cache.get`: `{found: false}` or `{found: true, value | data, expired, storedAt, expiresAt?, tier}`. */
  async get(key, options) {
    const target = pick({}, checkOptions('cache.get', options, TARGET), TARGET);
    return decodeLookup(await this.#call('cache.get', { key, ...target }));
  }

  /** `cache.getMany`: `{entries: {key: what get answers}}`. */
  async getMany(keys, options) {
    const target = pick({}, checkOptions('cache.getMany', options, TARGET), TARGET);
    const r = await this.#call('cache.getMany', { keys: [...keys], ...target });
    for (const k of Object.keys(r?.entries ?? {})) decodeLookup(r.entries[k]);
    return r;
  }

  /**
   * `cache.setMany`, all or none. `entries`: an array of `{key, value | data,
   * ttl?, group?}`, or a Map / plain object from key to value. `ttl` applies
   * to every entry that does not give its own. An array's entries are sent as
   * given (Buffers as base64 `data`), so the server refuses one with a
   * misspelt member (InvalidParams, `data.path` such as
   * `params.entries[1].tll`) and nothing is stored.
   */
  setMany(entries, options) {
    const { cache, group, ttl } = checkOptions('cache.setMany', options, ['ttl', ...TARGET]);
    let list;
    if (Array.isArray(entries)) {
      list = entries.map(({ value, data, ...rest }) => {
        const entry = putStored(rest, value, data);
        if (ttl !== undefined && entry.ttl === undefined) entry.ttl = ttl;
        return entry;
      });
    } else {
      const pairs = entries instanceof Map ? [...entries] : Object.entries(entries);
      list = pairs.map(([key, value]) => pick(putStored({ key }, value, undefined), { ttl }, ['ttl']));
    }
    return this.#call('cache.setMany', pick({ entries: list }, { cache, group }, TARGET));
  }

  /** `cache.has`: `{found, valid}`. */
  has(key, options) {
    return this.#call('cache.has', pick({ key }, checkOptions('cache.has', options, TARGET), TARGET));
  }

  /** `cache.remove`: `{removed}`. */
  remove(key, options) {
    return this.#call('cache.remove', pick({ key }, checkOptions('cache.remove', options, TARGET), TARGET));
  }

  /** `cache.touch`: restarts the entry's lifetime; `{found}`. */
  touch(key, options) {
    return this.#call('cache.touch', pick({ key }, checkOptions('cache.touch', options, TARGET), TARGET));
  }

  /** `cache.keys`: one page, `{keys, cursor?}`. */
  keys(options) {
    const known = ['prefix', 'limit', 'cursor', ...TARGET];
    return this.#call('cache.keys', pick({}, checkOptions('cache.keys', options, known), known));
  }

  /** Every key (following cursors), as an async iterator. */
  async *iterKeys(options) {
    const { prefix, pageSize, cache, group } =
      checkOptions('cache.iterKeys', options, ['prefix', 'pageSize', ...TARGET]);
    let cursor;
    do {
      const page = await this.keys({ prefix, limit: pageSize, cursor, cache, group });
      yield* page.keys;
      cursor = page.cursor;
    } while (cursor !== undefined);
  }

  /** `cache.clear`: `tier` 'memory', 'disk' or 'all' (default); without `group`, every group. `{removed}`. */
  clear(options) {
    const known = ['tier', ...TARGET];
    return this.#call('cache.clear', pick({}, checkOptions('cache.clear', options, known), known));
  }

  /** `cache.purgeExpired`: without `group`, every group. `{removed}`. */
  purgeExpired(options) {
    return this.#call('cache.purgeExpired', pick({}, checkOptions('cache.purgeExpired', options, TARGET), TARGET));
  }

  /** `cache.stats`: counts, bytes, hits, misses and evictions per tier. */
  stats(options) {
    return this.#call('cache.stats', pick({}, checkOptions('cache.stats', options, ['cache']), ['cache']));
  }

  /** `cache.list`: `{caches: [{name, config, count, bytes}]}`. */
  list() {
    return this.#call('cache.list', {});
  }

  /** `cache.drop`: deletes a cache and everything in it. */
  drop(name) {
    return this.#call('cache.drop', { cache: name });
  }

  /** `cache.subscribe`: events for one cache (`'name'` or `{cache}`), or (none given) for all. */
  subscribe(name) {
    if (name !== null && typeof name === 'object') name = checkOptions('cache.subscribe', name, ['cache']).cache;
    return this.#call('cache.subscribe', name === undefined ? {} : { cache: name });
  }
}

/** Params naming one object: a key string, or `{type, value}` / `{key, cache?, group?}`. */
function subject(what, target) {
  let params;
  if (typeof what === 'string') params = { key: what };
  else if (what !== null && typeof what === 'object' && !Array.isArray(what)) params = { ...what };
  else throw new TypeError('name an object by its key (a string) or as {type, value}');
  if (!('key' in params) && !('type' in params && 'value' in params)) {
    throw new TypeError('name an object by its key (a string) or as {type, value}');
  }
  return pick(params, target, TARGET);
}

/** An `object.equals` side: a key string, or `{type, value}` / `{key, cache?, group?}`, sent as given. */
function operand(what, name) {
  if (typeof what === 'string') return what;
  if (what !== null && typeof what === 'object' && !Array.isArray(what)) return what;
  throw new TypeError(`${name} must be a key (a string) or an object such as {type, value}`);
}

/**
 * `db.schema.*`: versioned object types. `fields` map names to types:
 * 'string', 'integer', 'number', 'bool', 'date', 'data', 'json', 'T?' (may be
 * absent), `{array: T}`, `{map: T}`, `{ref: 'OtherType'}`, `{optional: T}`,
 * or `{type: T, default: value}`. Definitions are sent as given (the server
 * refuses a misspelt member in them with InvalidParams); an unknown option
 * throws a TypeError, as for `db.cache`.
 */
class SchemaMethods {
  #db;
  constructor(db) {
    this.#db = db;
  }

  /**
   * `schema.register`: keeps one version (dotted numbers, '1.0.2') of a type.
   * `parent` names a type whose fields objects also have; `extensions` maps
   * category names to more (optional) fields; `migrations` is a list of
   * `{from: '1.0.0' | ['1.0.0', ...], steps: [...]}` with steps
   * `{op: 'rename', from, to}`, `{op: 'remove', field}`, `{op: 'set' |
   * 'default', field, value}`, `{op: 'convert', field, to, from?}` (to:
   * string, number, integer, bool, date, epochSeconds, epochMillis),
   * `{op: 'move', from, to}` (dotted paths) and `{op: 'callback'}` (asks
   * `onMigrate`). Resolves `{type, version, created}`; SchemaConflict when
   * the version is registered with another definition.
   */
  register(type, version, fields, options) {
    const known = ['parent', 'extensions', 'migrations'];
    const given = checkOptions('schema.register', options, known);
    return this.#db.call('schema.register', pick({ type, version, fields }, given, known));
  }

  /** `schema.get`: `{schema: {type, version, fields, parent?, extensions?, migrations?}, versions}` (newest, or `version`). */
  get(type, options) {
    return this.#db.call('schema.get', pick({ type }, checkOptions('schema.get', options, ['version']), ['version']));
  }

  /** `schema.list`: `{types: [{type, versions, newest, parent?}]}`. */
  list() {
    return this.#db.call('schema.list', {});
  }

  /** `schema.remove`: deletes every version; stored objects stay readable as plain maps. `{removed}`. */
  remove(type) {
    return this.#db.call('schema.remove', { type });
  }

  /** `schema.extend`: adds a category's (optional) fields to the newest version. `{schema}`. */
  extend(type, category, fields) {
    return this.#db.call('schema.extend', { type, category, fields });
  }
}

/**
 * `db.object.*`: values checked against their type, stored with its version,
 * migrated when read. An unknown option throws a TypeError, as for `db.cache`.
 */
class ObjectMethods {
  #db;
  constructor(db) {
    this.#db = db;
  }

  /**
   * `object.put`: validates `value` against the newest version of `type` and
   * stores it (`ttl` in seconds). `{stored, type, version}`; InvalidObject
   * (`data: {path, reason}`) or SchemaNotFound when it does not fit.
   */
  put(key, options) {
    const { type, value, ttl, cache, group } = checkOptions('object.put', options, ['type', 'value', 'ttl', ...TARGET]);
    return this.#db.call('object.put', pick({ key, type, value }, { ttl, cache, group }, [
      'ttl', ...TARGET,
    ]));
  }

  /**
   * `object.get`: `{found: false}`, or `{found: true, type, version, value,
   * migratedFrom?}` at the newest version (`migratedFrom`: the stored version,
   * when this read migrated and wrote it back); `{found: false, dropped: true,
   * type, migratedFrom}` when `onMigrate` dropped it. `type` checks the type
   * (RequestFailed otherwise). NotAnObject, MigrationMissing, MigrationFailed.
   */
  get(key, options) {
    const known = ['type', ...TARGET];
    return this.#db.call('object.get', pick({ key }, checkOptions('object.get', options, known), known));
  }

  /**
   * `object.describe`: HMCache's description, `{description: {'*Type': {field,
   * '(Category)field', '**Parent': {...}}}}`, of a stored object (its key) or
   * of `{type, value}`.
   */
  describe(what, options) {
    return this.#db.call('object.describe', subject(what, checkOptions('object.describe', options, TARGET)));
  }

  /**
   * `object.equals`: `{equal}` (same type and value). `a` and `b` are each a
   * key (in `cache`/`group`), `{type, value}` or `{key, cache?, group?}`.
   */
  equals(a, b, options) {
    const target = checkOptions('object.equals', options, TARGET);
    return this.#db.call('object.equals', pick({ a: operand(a, 'a'), b: operand(b, 'b') }, target, TARGET));
  }

  /** `object.hash`: `{hash, algorithm: 'fnv1a64-canonical-json'}` of a key or `{type, value}`; equal objects hash alike. */
  hash(what, options) {
    return this.#db.call('object.hash', subject(what, checkOptions('object.hash', options, TARGET)));
  }

  /** `object.copy`: copies the object as stored to `toKey` (in `toCache`/`toGroup`, default the source's). `{copied, type, version}`. */
  copy(key, toKey, options) {
    const known = ['toCache', 'toGroup', ...TARGET];
    return this.#db.call('object.copy', pick({ key, toKey }, checkOptions('object.copy', options, known), known));
  }
}

/** `db.migrate.*`. An unknown option throws a TypeError, as for `db.cache`. */
class MigrateMethods {
  #db;
  constructor(db) {
    this.#db = db;
  }

  /**
   * `migrate.run`: migrates every stored object behind its type's newest
   * version (of one `type`, in one `cache`, or all), `batchSize` per
   * transaction (default 500). `dryRun: true` writes nothing back;
   * `onFailure: 'drop'` deletes objects that fail ('keep' by default).
   * `onProgress(value)` receives `{kind: 'begin'}`, `{kind: 'report',
   * percentage, message}` after batches and `{kind: 'end'}` (a
   * `workDoneToken` is added; `workDoneToken` chooses it); an aborted
   * `signal` stops it between batches (RequestCancelled, counts in `data`).
   * Resolves `{examined, migrated, upToDate, failed, dropped, failures:
   * [{key, group?, cache?, type?, fromVersion?, error}]}`.
   */
  run(options) {
    const sent = ['type', 'cache', 'dryRun', 'batchSize', 'onFailure', 'workDoneToken'];
    const given = checkOptions('migrate.run', options, [...sent, 'onProgress', 'signal']);
    return this.#db.call('migrate.run', pick({}, given, sent), pick({}, given, ['onProgress', 'signal']));
  }
}

/** `records` (any iterable of records) as an array, each record sent as given. */
function recordList(records, what = 'records') {
  if (records === null || typeof records !== 'object' || typeof records[Symbol.iterator] !== 'function') {
    throw new TypeError(`${what} must be an array (or another iterable); pass [${what === 'ids' ? 'id' : 'record'}] for one`);
  }
  return Array.isArray(records) ? records : [...records];
}

/** `include` as an array of relationship paths; one path may be given as a string. */
function includePaths(include) {
  if (include === undefined || include === null) return undefined;
  return typeof include === 'string' ? [include] : [...include];
}

function whereClause(where) {
  if (where === undefined || where === null) return undefined;
  if (typeof where !== 'object' || Array.isArray(where)) {
    throw new TypeError('where must be an object mapping keys to values or to {operator: operand}');
  }
  return where;
}

function orderKeys(orderBy) {
  if (orderBy === undefined || orderBy === null || typeof orderBy === 'string') return orderBy ?? undefined;
  return [...orderBy];
}

const DEFINE_OPTIONS = ['casing', 'dateFormat', 'reservedWords'];

/**
 * `db.entity.*`: JSONCache-style models of entities, attributes and
 * relationships, kept as real tables and filled from a backend's JSON.
 *
 * Entity definitions, records and `where` clauses are sent exactly as given;
 * their keys are never renamed here: the server converts record keys with
 * the model's `casing` (a `snake_case` model takes and returns
 * `{other_names: ...}`); the server refuses a misspelt member of a
 * definition or a `where` operator with InvalidParams naming it, and an
 * unknown option throws a TypeError, as for `db.cache`. Records merge into
 * stored ones: keys a record leaves out keep their value; an explicit `null`
 * clears an optional attribute or unlinks a relationship.
 *
 * `where` maps JSON keys to a value (equality) or to `{operator: operand}`
 * with `eq`, `ne`, `gt`, `gte`, `lt`, `lte`, `in` (an array), `like` (`%`,
 * `_`) and `isNull` (true/false), combined with AND; dates are written in the
 * model's format and to-one relationships as the destination's identifier.
 */
class EntityMethods {
  #db;
  constructor(db) {
    this.#db = db;
  }

  /**
   * `entity.define`: creates a model's tables, or redefines it in place.
   * `define(model, entities, {casing, dateFormat, reservedWords})`, or
   * `define({model, entities, casing?, dateFormat?, reservedWords?})` (such as
   * a definition `models()` lists).
   *
   * `entities`: `[{name, identifier?, attributes: {name: type}, relationships?:
   * [{name, destination, toMany?, inverse?, deleteRule?: 'nullify' | 'cascade'
   * | 'deny'}]}]`, names in camelCase; types 'string', 'integer', 'number',
   * 'bool', 'date', 'data' (base64), 'json', or one of them optional
   * ('string?'). `casing`: 'camelCase' (default) or 'snake_case' for the
   * JSON keys; `dateFormat`: 'iso8601' (default), 'iso8601Basic' or
   * 'epochSeconds'; `reservedWords` (default ['description']): JSON keys held
   * as the entity-qualified name (`description` ⇄ `bandDescription`).
   *
   * Resolves `{model, created, newEntities, added: ['Entity.member']}`. The
   * same definition again changes nothing; new entities, optional attributes
   * and relationships are added in place; any other change rejects with
   * ModelConflict (`data: {model, changes}`), a malformed one with InvalidParams.
   */
  define(model, entities, options) {
    let params;
    if (model !== null && typeof model === 'object' && !Array.isArray(model)) {
      if (Array.isArray(entities)) throw new TypeError('give a model name and entities, or one definition object, not both');
      params = { ...model };
      pick(params, checkOptions('entity.define', entities ?? undefined, DEFINE_OPTIONS), DEFINE_OPTIONS);
    } else {
      if (entities === undefined) throw new TypeError('define() needs the model\'s entities');
      const given = checkOptions('entity.define', options, DEFINE_OPTIONS);
      params = pick({ model, entities: recordList(entities, 'entities') }, given, DEFINE_OPTIONS);
    }
    return this.#db.call('entity.define', params);
  }

  /**
   * `entity.models`: `{models: [{model, casing, dateFormat, reservedWords,
   * entities}]}`, every model as stored (defaults filled in, optional types
   * written `{optional: T}`), sorted by name.
   */
  models() {
    return this.#db.call('entity.models', {});
  }

  /**
   * `entity.stage`: checks `records` of `entity` and adds them to the batch
   * the server keeps until `apply` or `discard`; nothing is written yet, and
   * references may name records staged later. A record staged twice (same
   * identifier) is merged. Resolves `{staged, pending}` (distinct records in
   * the batch). A bad record rejects with InvalidParams naming it (and stages
   * nothing of this call); an unknown entity with EntityNotFound.
   */
  stage(entity, records) {
    return this.#db.call('entity.stage', { entity, records: recordList(records) });
  }

  /**
   * `entity.apply`: writes everything staged in one transaction and empties
   * the batch. Resolves `{inserted, updated, linked, unresolved}`. A
   * reference to a record that exists neither in the batch nor in the store
   * rejects with UnresolvedReferences: nothing is written and the batch stays
   * (stage the missing records and apply again, or `discard`);
   * `onMissing: 'null'` clears such references instead (counted as
   * `unresolved`). A new record lacking required attributes rejects with
   * IncompleteRecord.
   */
  apply(options) {
    return this.#db.call('entity.apply', pick({}, checkOptions('entity.apply', options, ['onMissing']), ['onMissing']));
  }

  /** `entity.discard`: drops the staged batch. `{discarded}`. */
  discard() {
    return this.#db.call('entity.discard', {});
  }

  /**
   * `entity.upsert`: stages `records` in a batch of their own and applies it
   * at once (the staged batch is left alone). Resolves and rejects as `apply`.
   */
  upsert(entity, records, options) {
    const given = checkOptions('entity.upsert', options, ['onMissing']);
    return this.#db.call('entity.upsert', pick({ entity, records: recordList(records) }, given, ['onMissing']));
  }

  /**
   * `entity.get`: `{found: false}` or `{found: true, record}`, in the model's
   * casing and date format. To-one relationships are the destination's
   * identifier and to-many ones the related identifiers, unless `include`
   * (a path or an array, e.g. `['albums', 'members.musician']`) nests them.
   */
  get(entity, id, options) {
    const { include } = checkOptions('entity.get', options, ['include']);
    return this.#db.call('entity.get', pick({ entity, id }, { include: includePaths(include) }, ['include']));
  }

  /** `entity.getMany`: `{records, missing}`, the records found in the order asked and the identifiers without one. */
  getMany(entity, ids, options) {
    const { include } = checkOptions('entity.getMany', options, ['include']);
    return this.#db.call('entity.getMany', pick({ entity, ids: recordList(ids, 'ids') }, { include: includePaths(include) }, [
      'include',
    ]));
  }

  /**
   * `entity.query`: one page of the records matching `where`. `orderBy`: a
   * key or an array, `'-key'` descending (the identifier breaks ties);
   * `limit` 1 to 100000 (default 1000); `offset`; `include` as for `get`.
   * Resolves `{records, nextOffset?}`; `nextOffset` is there when more
   * records follow (see `iterQuery`).
   */
  query(entity, options) {
    const { where, orderBy, limit, offset, include } = checkOptions('entity.query', options, [
      'where', 'orderBy', 'limit', 'offset', 'include',
    ]);
    const params = pick({ entity }, {
      where: whereClause(where), orderBy: orderKeys(orderBy), limit, offset, include: includePaths(include),
    }, ['where', 'orderBy', 'limit', 'offset', 'include']);
    return this.#db.call('entity.query', params);
  }

  /**
   * Every record `query` matches, as an async iterator: one `entity.query`
   * per page of `pageSize` (default 1000), following `nextOffset`. Pages are
   * taken by offset, so records written or deleted meanwhile may be skipped
   * or seen twice.
   */
  async *iterQuery(entity, options) {
    const { where, orderBy, pageSize, offset, include } = checkOptions('entity.iterQuery', options, [
      'where', 'orderBy', 'pageSize', 'offset', 'include',
    ]);
    const asked = {
      where: whereClause(where), orderBy: orderKeys(orderBy), limit: pageSize, include: includePaths(include),
    };
    let at = offset;
    do {
      const page = await this.query(entity, { ...asked, offset: at });
      yield* page.records;
      at = page.nextOffset;
    } while (at !== undefined);
  }

  /** `entity.count`: `{count}`, the records matching `where` (all without). */
  count(entity, options) {
    const { where } = checkOptions('entity.count', options, ['where']);
    return this.#db.call('entity.count', pick({ entity }, { where: whereClause(where) }, ['where']));
  }

  /**
   * `entity.delete`: deletes the record with identifier `id`, applying each
   * relationship's delete rule (nullify clears references to it, cascade
   * deletes the related records, deny rejects with DeleteDenied), all or
   * nothing. `{deleted, nullified}` (`deleted: 0` when there was no such record).
   */
  delete(entity, id) {
    return this.#db.call('entity.delete', { entity, id });
  }
}

/** One cache (and group) as an async, Map-like object. */
export class CacheView {
  #db;
  #target;

  constructor(db, name = 'default', group = '', ttl) {
    this.#db = db;
    this.name = name;
    this.group = group;
    /** Seconds to live for `set` and `setMany` (undefined: the cache's lifespan). */
    this.ttl = ttl;
    this.#target = { cache: name, group };
  }

  /** The value (JSON, or a Buffer for bytes), or undefined when not found. */
  async get(key) {
    const r = await this.#db.cache.get(key, this.#target);
    if (!r.found) return undefined;
    return 'data' in r ? r.data : r.value;
  }

  /** Everything `cache.get` says about the key. */
  entry(key) {
    return this.#db.cache.get(key, this.#target);
  }

  /** Stores a value (a Buffer is stored as bytes); `ttl` in seconds. */
  async set(key, value, options) {
    const { ttl = this.ttl } = checkOptions('CacheView.set', options, ['ttl']);
    await this.#db.cache.set(key, { value, ttl, ...this.#target });
    return this;
  }

  /** Removes the key; whether it was there. */
  async delete(key) {
    return (await this.#db.cache.remove(key, this.#target)).removed;
  }

  /** Whether the key is stored and not expired. */
  async has(key) {
    return (await this.#db.cache.has(key, this.#target)).valid;
  }

  /** Restarts the key's lifetime; whether it was there. */
  async touch(key) {
    return (await this.#db.cache.touch(key, this.#target)).found;
  }

  /** A Map of the keys found to their values. */
  async getMany(keys) {
    const { entries } = await this.#db.cache.getMany(keys, this.#target);
    const found = new Map();
    for (const [k, r] of Object.entries(entries)) if (r.found) found.set(k, 'data' in r ? r.data : r.value);
    return found;
  }

  /** Stores every key of a Map or object, all or none. */
  setMany(entries, options) {
    const { ttl = this.ttl } = checkOptions('CacheView.setMany', options, ['ttl']);
    return this.#db.cache.setMany(entries, { ttl, ...this.#target });
  }

  /** Every key, in byte order. */
  keys(options) {
    const { prefix, pageSize } = checkOptions('CacheView.keys', options, ['prefix', 'pageSize']);
    return this.#db.cache.iterKeys({ prefix, pageSize, ...this.#target });
  }

  /** `[key, value]` pairs for every key (one `get` each). */
  async *entries(options) {
    const { prefix, pageSize } = checkOptions('CacheView.entries', options, ['prefix', 'pageSize']);
    for await (const key of this.keys({ prefix, pageSize })) {
      const r = await this.#db.cache.get(key, this.#target);
      if (r.found) yield [key, 'data' in r ? r.data : r.value];
    }
  }

  /** Empties the view's group; how many entries went (0 for a cache that does not exist). */
  async clear(options) {
    const { tier } = checkOptions('CacheView.clear', options, ['tier']);
    try {
      return (await this.#db.cache.clear({ tier, ...this.#target })).removed;
    } catch (err) {
      if (err instanceof CacheNotFound) return 0;
      throw err;
    }
  }

  stats() {
    return this.#db.cache.stats({ cache: this.name });
  }

  [Symbol.asyncIterator]() {
    return this.keys();
  }
}
