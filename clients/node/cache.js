// `db.cache.*`: one method per `cache.*` request, and how values and bytes
// are put into params and taken out of answers.

import { encodeKey } from './encryption.js';
import { ErrorCode, LarderError } from './errors.js';
import { checkOptions, pick } from './options.js';

/** Used inside the client: warns when a fallback is registered the server will not ask. */
export const WARN_FALLBACK = Symbol('warnFallback');

/** @typedef {import('./client.js').Larder} Larder */
/** @typedef {Uint8Array | ArrayBuffer} Bytes */

export const TARGET = Object.freeze(['cache', 'group']);
/** What makes a write conditional (SPEC 6.13). */
export const CONDITIONS = Object.freeze(['ifRevision', 'ifAbsent']);

/** Return it from a fetcher or fallback to answer that there is nothing under the key (`{found: false}`). */
export const NOT_FOUND = Symbol.for('larder.NOT_FOUND');

/** The settings of a fetch (`cache.open`'s `fetch`, and `getOrFetch`'s overrides). */
export const FETCH_SETTINGS = Object.freeze(['retries', 'retryDelayMs', 'timeoutMs', 'ttl', 'negativeTtl', 'staleWhileRevalidate', 'shared']);

/** Used inside the client: `db[REQUEST](method, params, decode)` is `call` without options, resolving with `decode(result)`. */
export const REQUEST = Symbol('request');

/** Used inside the client: whether any cache-wide fallback is registered. */
export const HAS_FALLBACK = Symbol('hasFallback');

/** (cache, group, key) as one Map key. */
function flightKey(cache, group, key) {
  return `${cache}\u0000${group}\u0000${key}`;
}

/** What a fetcher or fallback threw, as the error to answer: its integer `code` (else 1), message and data. */
function asAnswer(err) {
  if (err instanceof LarderError && Number.isInteger(err.code)) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new LarderError(Number.isInteger(err?.code) ? err.code : 1, message, err?.data);
}

/** Deeper than this the check leaves the value to JSON.stringify (which also finds cycles). */
const CHECKED_DEPTH = 512;

/**
 * Where in `value` something JSON cannot hold sits, as a path and a reason
 * (`[2].price is NaN`), or undefined when there is nothing. Members of
 * objects that are undefined are left out, as JSON.stringify does; anywhere
 * else undefined has no JSON form.
 */
function notJSON(value, depth) {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return undefined;
    case 'number':
      return Number.isFinite(value) ? undefined : ` is ${value}`;
    case 'undefined':
      return ' is undefined';
    case 'object': {
      if (value === null || depth > CHECKED_DEPTH || typeof value.toJSON === 'function') return undefined;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
          const bad = notJSON(value[i], depth + 1);
          if (bad !== undefined) return `[${i}]${bad}`;
        }
        return undefined;
      }
      for (const key of Object.keys(value)) {
        const member = value[key];
        if (member === undefined) continue;
        const bad = notJSON(member, depth + 1);
        if (bad !== undefined) return `.${key}${bad}`;
      }
      return undefined;
    }
    default:
      return ` is a ${typeof value}`;
  }
}

/**
 * Throws a TypeError, before anything is sent, when `value` holds something
 * JSON cannot: NaN, Infinity, a function, a symbol, a bigint, or undefined
 * (other than as an object member, which is left out).
 * @param {unknown} value
 * @param {string} what how the message names the value (`cache.set: value`)
 */
export function checkJSON(value, what) {
  const bad = notJSON(value, 0);
  if (bad !== undefined) throw new TypeError(`${what}${bad}, which JSON cannot hold`);
}

function isBytes(v) {
  return v instanceof Uint8Array || v instanceof ArrayBuffer;
}

/** Bytes as base64; a string is taken to be base64 already. */
function toBase64(v) {
  if (typeof v === 'string') return v;
  if (v instanceof ArrayBuffer) return Buffer.from(v).toString('base64');
  if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
  throw new TypeError('data must be a Buffer, Uint8Array, ArrayBuffer or base64 string');
}

/**
 * Puts `value` (JSON, or bytes) or `data` (bytes) on `target` as the protocol
 * wants them. Throws a TypeError for both, neither, or a value JSON cannot hold.
 * @param {Record<string, unknown>} target
 * @param {unknown} value
 * @param {Bytes | string | undefined} data
 * @param {string} what how errors name the value
 */
export function putStored(target, value, data, what) {
  if (value !== undefined && data !== undefined) throw new TypeError(`${what}: give value or data, not both`);
  if (data !== undefined) target.data = toBase64(data);
  else if (isBytes(value)) target.data = toBase64(value);
  else if (value === undefined) throw new TypeError(`${what}: give a value (any JSON) or data (bytes)`);
  else {
    checkJSON(value, `${what}: value`);
    target.value = value;
  }
  return target;
}

/** A `cache.get` answer with `data` decoded to a Buffer. */
export function decodeLookup(r) {
  if (r && typeof r.data === 'string') r.data = Buffer.from(r.data, 'base64');
  return r;
}

/** A `cache.transaction` answer with each `get`'s `data` decoded to a Buffer. */
function decodeTransaction(r) {
  if (Array.isArray(r?.results)) for (const result of r.results) decodeLookup(result);
  return r;
}

/**
 * `db.cache.*`: one method per `cache.*` request; results as the server sends
 * them, `data` as Buffers. An option a method does not take throws a
 * TypeError naming the one most likely meant, before anything is sent.
 */
export class CacheMethods {
  #db;
  /** Fetchers passed to getOrFetch, oldest first, by (cache, group, key). */
  #callFetchers = new Map();
  /** The fetcher that answered a key's first attempt, kept for its retries (a background refresh outlives its call). */
  #flightFetchers = new Map();
  /** Why the last attempt of a key could not be answered here (a value JSON cannot hold). */
  #localErrors = new Map();
  /** `cache.open`'s fetcher and fallback by cache name; '*' for the spawn options'. */
  #fetchers = new Map();
  #fallbacks = new Map();

  /** @param {Larder} db */
  constructor(db) {
    this.#db = db;
    db.onRequest('cache.fetch', (params, request) => this.#answerFetch(params, request));
    db.onRequest('cache.fallback', (params, request) => this.#answerFallback(params, request));
  }

  /**
   * Registers a fetcher or fallback for one cache (`'*'`: every cache
   * without its own); `undefined` removes it. Used by `cache.open` and the
   * spawn options.
   * @param {'fetcher' | 'fallback'} kind
   * @param {string} cache
   * @param {Function | undefined | null} fn
   */
  register(kind, cache, fn) {
    const map = kind === 'fallback' ? this.#fallbacks : this.#fetchers;
    if (fn === undefined || fn === null) {
      map.delete(cache);
      return;
    }
    if (typeof fn !== 'function') throw new TypeError(`${kind} must be a function, not ${typeof fn}`);
    map.set(cache, fn);
  }

  [HAS_FALLBACK]() {
    return this.#fallbacks.size > 0;
  }

  /** Turns what a fetcher or fallback returned into the answer `{value} | {data} | {found: false}`. */
  #answer(result, ttl, what) {
    let answer;
    if (result === undefined || result === NOT_FOUND) return { found: false };
    if (isBytes(result)) answer = { data: toBase64(result) };
    else {
      checkJSON(result, what);
      answer = { value: result };
    }
    if (ttl !== undefined) answer.ttl = ttl;
    return answer;
  }

  async #answerFetch(params, request) {
    const { cache = 'default', group = '', key, attempt = 1 } = params ?? {};
    const k = flightKey(cache, group, key);
    // Chosen before anything is awaited, so a call answered meanwhile (stale while revalidate) still counts.
    let fetcher = this.#callFetchers.get(k)?.[0];
    if (fetcher === undefined && attempt > 1) fetcher = this.#flightFetchers.get(k);
    fetcher ??= this.#fetchers.get(cache) ?? this.#fetchers.get('*');
    this.#localErrors.delete(k);
    if (fetcher === undefined) {
      this.#flightFetchers.delete(k);
      throw new LarderError(1, `no fetcher for ${JSON.stringify(key)} in cache ${JSON.stringify(cache)}`);
    }
    this.#flightFetchers.set(k, fetcher);
    const context = { cache, group, attempt, signal: request.signal, ttl: undefined };
    let result;
    try {
      result = await fetcher(key, context);
    } catch (err) {
      throw asAnswer(err);
    }
    try {
      const answer = this.#answer(result, context.ttl, `cache.getOrFetch: the fetcher's value for ${JSON.stringify(key)}`);
      this.#flightFetchers.delete(k);
      return answer;
    } catch (err) {
      this.#localErrors.set(k, err);
      throw new LarderError(ErrorCode.invalidParams, err.message);
    }
  }

  async #answerFallback(params, request) {
    const { cache = 'default', group = '', key, error } = params ?? {};
    const fallback = this.#fallbacks.get(cache) ?? this.#fallbacks.get('*');
    // No fallback here: the fetch's own error stands.
    if (fallback === undefined) throw LarderError.fromResponse(error ?? { code: 1, message: 'no fallback' });
    const context = { cache, group, error: LarderError.fromResponse(error), signal: request.signal, ttl: undefined };
    let result;
    try {
      result = await fallback(key, context);
    } catch (err) {
      throw asAnswer(err);
    }
    return this.#answer(result, context.ttl, `cache.getOrFetch: the fallback's value for ${JSON.stringify(key)}`);
  }

  /**
   * `cache.getOrFetch`: the entry under `key`, as `get` answers it, with
   * `fetched`; on a miss the server asks this client, which calls
   * `fetcher(key, {cache, group, attempt, signal, ttl})` (else the cache's
   * fetcher from `open`, else the spawn option's). What it returns is stored
   * and answered: any JSON value, bytes (stored as data), or
   * `undefined`/`NOT_FOUND` for nothing (`{found: false}`, not stored); set
   * `context.ttl` to give the entry its own lifetime. Throwing fails the
   * attempt (retried while `retries` allow). When every attempt failed and
   * there is no fallback, rejects with FetchFailed (`data: {attempts,
   * lastError}`); a fetcher value JSON cannot hold rejects with a TypeError.
   * Concurrent calls for one key share one fetch (the first call's fetcher);
   * with `shared`, so do the processes and sidecars on the store.
   * @param {string} key
   * @param {import('./index.js').Fetcher | null | undefined} fetcher
   * @param {import('./index.js').GetOrFetchOptions} [options]
   */
  async getOrFetch(key, fetcher, options) {
    if (options === undefined && fetcher !== null && typeof fetcher === 'object') {
      options = fetcher;
      fetcher = undefined;
    }
    if (fetcher !== undefined && fetcher !== null && typeof fetcher !== 'function') {
      throw new TypeError(`cache.getOrFetch: fetcher must be a function, not ${typeof fetcher}`);
    }
    const known = [...TARGET, ...FETCH_SETTINGS];
    const { signal, ...rest } = checkOptions('cache.getOrFetch', options, [...known, 'signal']);
    const params = pick({ key }, rest, known);
    const k = flightKey(params.cache ?? 'default', params.group ?? '', key);
    let list;
    if (fetcher) {
      list = this.#callFetchers.get(k);
      if (!list) this.#callFetchers.set(k, (list = []));
      list.push(fetcher);
    }
    try {
      return decodeLookup(await this.#db.call('cache.getOrFetch', params, signal ? { signal } : undefined));
    } catch (err) {
      const local = this.#localErrors.get(k);
      if (local !== undefined && err?.code === ErrorCode.fetchFailed && err.data?.lastError?.code === ErrorCode.invalidParams) {
        this.#localErrors.delete(k);
        local.cause = err;
        throw local;
      }
      throw err;
    } finally {
      if (list) {
        list.splice(list.indexOf(fetcher), 1);
        if (list.length === 0 && this.#callFetchers.get(k) === list) this.#callFetchers.delete(k);
      }
    }
  }

  /**
   * `cache.open`: creates a cache or changes its settings. `memory` and
   * `disk` (`{maxCount?, maxBytes?}`) are sent as given: the server refuses a
   * misspelt limit with InvalidParams (`data: {path: 'params.memory.maxCont',
   * expected, suggestion: 'maxCount'}`) and changes nothing. `persistent`
   * changed on an existing cache moves its entries: to disk, or the most
   * recently used that fit into memory, deleting its rows (subscribers get
   * `cache.cleared` with `tier: 'disk'`); a durable store stays persistent.
   * `encrypted: true` seals the cache's keys and values on disk under the session's key
   * (`spawn`'s `encryptionKey`, `encryptionKeys` or `keyFile`); fixed at
   * creation. Creating one without a key, or opening one with another key,
   * rejects with EncryptionKeyError (`reason` 'keyRequired' or 'keyMismatch').
   * @param {string} [name]
   * @param {import('./index.js').CacheOpenOptions} [options]
   */
  open(name = 'default', options) {
    const known = [
      'kind', 'persistent', 'memory', 'disk', 'lifespan', 'returnsExpired', 'purgeExpiredAfter', 'persistsAcrossVersions',
      'encrypted', 'fetch',
    ];
    const checked = checkOptions('cache.open', options, [...known, 'fetcher', 'fallback']);
    if ('fetcher' in checked) this.register('fetcher', name, checked.fetcher);
    if ('fallback' in checked) {
      this.register('fallback', name, checked.fallback);
      this.#db[WARN_FALLBACK]?.();
    }
    return this.#db.call('cache.open', pick({ cache: name }, checked, known));
  }

  /**
   * `cache.set`: stores `value` (any JSON; a Buffer, Uint8Array or
   * ArrayBuffer is stored as bytes) under `key`, or the bytes `data` (then
   * pass `undefined` as the value). `ttl` in seconds (0: never expires;
   * default: the cache's lifespan). A value JSON cannot hold (NaN, Infinity,
   * a function, undefined) throws a TypeError before anything is sent.
   * `ifRevision: R` writes only if the live entry is at revision R,
   * `ifAbsent: true` only if there is no live entry; otherwise nothing is
   * written and it rejects with ConditionFailed (`revision`: the live
   * entry's, or null).
   * Resolves `{stored: true, size, revision}` once committed, `revision`
   * being the entry's new one.
   * @param {string} key
   * @param {unknown} value
   * @param {import('./index.js').CacheSetOptions} [options]
   */
  set(key, value, options) {
    if (options === undefined) return this.#db[REQUEST]('cache.set', putStored({ key }, value, undefined, 'cache.set'), undefined);
    const { data, ttl, cache, group, ifRevision, ifAbsent } =
      checkOptions('cache.set', options, ['data', 'ttl', ...TARGET, ...CONDITIONS]);
    const params = putStored({ key }, value, data, 'cache.set');
    if (ttl !== undefined) params.ttl = ttl;
    if (cache !== undefined) params.cache = cache;
    if (group !== undefined) params.group = group;
    if (ifRevision !== undefined) params.ifRevision = ifRevision;
    if (ifAbsent !== undefined) params.ifAbsent = ifAbsent;
    return this.#db.call('cache.set', params);
  }

  /**
   * `cache.get`: `{found: false}` or `{found: true, value | data, expired, storedAt, expiresAt?, tier,
   * revision}`; `revision` is what a compare-and-set gives `set`'s `ifRevision`.
   * @param {string} key
   * @param {import('./index.js').Target} [options]
   */
  get(key, options) {
    let params;
    try {
      params = options === undefined ? { key } : pick({ key }, checkOptions('cache.get', options, TARGET), TARGET);
    } catch (err) {
      return Promise.reject(err);
    }
    return this.#db[REQUEST]('cache.get', params, decodeLookup);
  }

  /**
   * `cache.getMany`: `{entries: {key: what get answers}}`.
   * @param {Iterable<string>} keys
   * @param {import('./index.js').Target} [options]
   */
  async getMany(keys, options) {
    const target = pick({}, checkOptions('cache.getMany', options, TARGET), TARGET);
    const r = await this.#db.call('cache.getMany', { keys: [...keys], ...target });
    for (const k of Object.keys(r?.entries ?? {})) decodeLookup(r.entries[k]);
    return r;
  }

  /**
   * `cache.setMany`, all or none. `entries`: an array of `{key, value | data,
   * ttl?, group?, ifRevision?, ifAbsent?}` (a condition that does not hold
   * writes nothing of the call and rejects with ConditionFailed, its `index`
   * naming the entry), or a Map / plain object from key to value. Resolves
   * `{stored, size, revisions}`, each entry's new revision in order. `ttl` applies
   * to every entry that does not give its own. An array's entries are sent as
   * given (Buffers as base64 `data`), so the server refuses one with a
   * misspelt member (InvalidParams, `data.path` such as
   * `params.entries[1].tll`) and nothing is stored. A value JSON cannot hold
   * throws a TypeError naming its key, before anything is sent.
   * @param {import('./index.js').CacheEntry[] | Map<string, unknown> | Record<string, unknown>} entries
   * @param {{ttl?: number, cache?: string, group?: string}} [options]
   */
  setMany(entries, options) {
    const { cache, group, ttl } = checkOptions('cache.setMany', options, ['ttl', ...TARGET]);
    let list;
    if (Array.isArray(entries)) {
      list = entries.map(({ value, data, ...rest }) => {
        // An entry with neither goes as given, for the server to name what it lacks (or misspells).
        const entry = value === undefined && data === undefined
          ? rest
          : putStored(rest, value, data, `cache.setMany: entry ${JSON.stringify(rest.key)}`);
        if (ttl !== undefined && entry.ttl === undefined) entry.ttl = ttl;
        return entry;
      });
    } else {
      const pairs = entries instanceof Map ? [...entries] : Object.entries(entries);
      list = pairs.map(([key, value]) =>
        pick(putStored({ key }, value, undefined, `cache.setMany: entry ${JSON.stringify(key)}`), { ttl }, ['ttl']),
      );
    }
    return this.#db.call('cache.setMany', pick({ entries: list }, { cache, group }, TARGET));
  }

  /**
   * `cache.has`: `{found, valid}`.
   * @param {string} key
   * @param {import('./index.js').Target} [options]
   */
  has(key, options) {
    return this.#db.call('cache.has', pick({ key }, checkOptions('cache.has', options, TARGET), TARGET));
  }

  /**
   * `cache.remove`: `{removed}`. `ifRevision`: only if the live entry is at
   * that revision, as for `set`.
   * @param {string} key
   * @param {import('./index.js').RemoveOptions} [options]
   */
  remove(key, options) {
    const known = [...TARGET, 'ifRevision'];
    return this.#db.call('cache.remove', pick({ key }, checkOptions('cache.remove', options, known), known));
  }

  /**
   * `cache.touch`: restarts the entry's lifetime, keeping its revision;
   * `{found}`, and `revived: true` when it had expired but was still stored.
   * `ifRevision`: only if the live entry is at that revision, as for `set`.
   * @param {string} key
   * @param {import('./index.js').RemoveOptions} [options]
   */
  touch(key, options) {
    const known = [...TARGET, 'ifRevision'];
    return this.#db.call('cache.touch', pick({ key }, checkOptions('cache.touch', options, known), known));
  }

  /**
   * `cache.increment`: adds `by` (default 1; may be negative) to the integer
   * under `key` atomically with every other writer, starting from `initial`
   * (default 0) where there is no live entry, and stores the sum as `set`
   * would (`ttl` as there). Resolves `{value, revision}`, the sum and the
   * entry's new revision; rejects with NotAnInteger when the live value is
   * not an integer within ±(2^53 − 1), or the sum would not be (nothing is
   * written then).
   * @param {string} key
   * @param {import('./index.js').IncrementOptions} [options]
   */
  increment(key, options) {
    const known = ['by', 'initial', 'ttl', ...TARGET];
    return this.#db.call('cache.increment', pick({ key }, checkOptions('cache.increment', options, known), known));
  }

  /**
   * `increment` by `-by` (default 1): resolves `{value, revision}`.
   * @param {string} key
   * @param {import('./index.js').IncrementOptions} [options]
   */
  decrement(key, options) {
    const known = ['by', 'initial', 'ttl', ...TARGET];
    const given = checkOptions('cache.decrement', options, known);
    return this.#db.call('cache.increment', pick({ key, by: -(given.by ?? 1) }, given, ['initial', 'ttl', ...TARGET]));
  }

  /**
   * `cache.transaction` from its elements as the protocol spells them:
   * `{compare?, then?, else?}`, each an array sent as given, so the server
   * refuses an element it cannot read with InvalidParams naming its place
   * (`then[0].op`, with the name most likely meant) and nothing is written.
   * `db.transaction()` builds them, and its `commit()` describes the answer;
   * each `get`'s `data` comes back as a Buffer.
   * @param {{compare?: object[], then?: object[], else?: object[]}} request
   */
  transaction(request) {
    let params;
    try {
      params = pick({}, checkOptions('cache.transaction', request, ['compare', 'then', 'else'], 'member'),
        ['compare', 'then', 'else']);
    } catch (err) {
      return Promise.reject(err);
    }
    return this.#db[REQUEST]('cache.transaction', params, decodeTransaction);
  }

  /**
   * `cache.keys`: one page, `{keys, cursor?}`.
   * @param {{prefix?: string, limit?: number, cursor?: string, cache?: string, group?: string}} [options]
   */
  keys(options) {
    const known = ['prefix', 'limit', 'cursor', ...TARGET];
    return this.#db.call('cache.keys', pick({}, checkOptions('cache.keys', options, known), known));
  }

  /**
   * Every key (following cursors), as an async iterator.
   * @param {{prefix?: string, pageSize?: number, cache?: string, group?: string}} [options]
   * @returns {AsyncGenerator<string>}
   */
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

  /**
   * `cache.groups`: one page of the cache's groups in byte order, `{groups:
   * [{group, count}], cursor?}`; `count` is what `cache.keys` would list in
   * the group, not counting its sub-groups. `prefix: 'a.'` lists the
   * sub-groups of `a` (HMCache's groups are directories).
   * @param {{prefix?: string, limit?: number, cursor?: string, cache?: string}} [options]
   */
  groups(options) {
    const known = ['prefix', 'limit', 'cursor', 'cache'];
    return this.#db.call('cache.groups', pick({}, checkOptions('cache.groups', options, known), known));
  }

  /**
   * Every group with its count (following cursors), as an async iterator.
   * @param {{prefix?: string, pageSize?: number, cache?: string}} [options]
   * @returns {AsyncGenerator<{group: string, count: number}>}
   */
  async *iterGroups(options) {
    const { prefix, pageSize, cache } = checkOptions('cache.iterGroups', options, ['prefix', 'pageSize', 'cache']);
    let cursor;
    do {
      const page = await this.groups({ prefix, limit: pageSize, cursor, cache });
      yield* page.groups;
      cursor = page.cursor;
    } while (cursor !== undefined);
  }

  /**
   * `cache.clear`: `tier` 'memory', 'disk' or 'all' (default); without `group`, every group. `{removed}`.
   * @param {{tier?: 'memory' | 'disk' | 'all', cache?: string, group?: string}} [options]
   */
  clear(options) {
    const known = ['tier', ...TARGET];
    return this.#db.call('cache.clear', pick({}, checkOptions('cache.clear', options, known), known));
  }

  /**
   * `cache.purgeExpired`: without `group`, every group. `{removed}`.
   * @param {import('./index.js').Target} [options]
   */
  purgeExpired(options) {
    return this.#db.call('cache.purgeExpired', pick({}, checkOptions('cache.purgeExpired', options, TARGET), TARGET));
  }

  /**
   * `cache.stats`: counts, bytes, hits, misses and evictions per tier.
   * @param {{cache?: string}} [options]
   */
  stats(options) {
    return this.#db.call('cache.stats', pick({}, checkOptions('cache.stats', options, ['cache']), ['cache']));
  }

  /** `cache.list`: `{caches: [{name, config, count, bytes}]}`. */
  list() {
    return this.#db.call('cache.list', {});
  }

  /**
   * `cache.drop`: deletes a cache and everything in it.
   * @param {string} name
   */
  drop(name) {
    return this.#db.call('cache.drop', { cache: name });
  }

  /**
   * `cache.rekey`: re-seals every entry of the encrypted cache `name` under
   * the new `key` (32 bytes as a Buffer or Uint8Array, or their base64;
   * checked here: a TypeError or RangeError), `batchSize` entries per
   * transaction (server default 500). The session must hold the cache's
   * current key; from the answer on it uses the new one, and later sessions
   * must give it (`encryptionKeys: {[name]: key}`). `onProgress(value)`
   * receives `{kind: 'begin'}`, `{kind: 'report', percentage, message}` after
   * each full batch and `{kind: 'end'}` (a `workDoneToken` is added;
   * `workDoneToken` chooses it). Meanwhile other uses of the cache reject with
   * EncryptionKeyError, `reason` 'rekeyRunning' and `retryable` true. A rekey
   * stopped part-way loses nothing: the cache rejects with 'rekeyInterrupted'
   * until `rekey` with the same new key, from a session holding the old one,
   * finishes it (`resumed: true`). Resolves `{cache, resealed, resumed}`.
   * @param {string} name
   * @param {import('./index.js').EncryptionKey} key
   * @param {import('./index.js').CacheRekeyOptions} [options]
   */
  rekey(name, key, options) {
    let params;
    let given;
    try {
      given = checkOptions('cache.rekey', options, ['batchSize', 'workDoneToken', 'onProgress']);
      params = pick({ cache: name, key: encodeKey(key, 'cache.rekey: key') }, given, ['batchSize', 'workDoneToken']);
    } catch (err) {
      return Promise.reject(err);
    }
    return this.#db.call('cache.rekey', params, given.onProgress ? { onProgress: given.onProgress } : undefined);
  }

  /**
   * `cache.subscribe`: events (`cache.evicted`, `cache.removed`,
   * `cache.cleared`) for one cache (`'name'` or `{cache}`), or (none given)
   * for all. `{withValues: true}` makes `cache.evicted` and `cache.removed`
   * carry the entry's `value` (or `data`, base64).
   * @param {string | {cache?: string, withValues?: boolean}} [name]
   * @param {{withValues?: boolean}} [options]
   */
  subscribe(name, options) {
    let withValues;
    if (name !== null && typeof name === 'object') {
      ({ cache: name, withValues } = checkOptions('cache.subscribe', name, ['cache', 'withValues']));
    } else if (options !== undefined) {
      ({ withValues } = checkOptions('cache.subscribe', options, ['withValues']));
    }
    const params = name === undefined ? {} : { cache: name };
    if (withValues !== undefined) params.withValues = withValues;
    return this.#db.call('cache.subscribe', params);
  }
}
