// `db.cache.*`: one method per `cache.*` request, and how values and bytes
// are put into params and taken out of answers.

import { checkOptions, pick } from './options.js';

/** @typedef {import('./client.js').Larder} Larder */
/** @typedef {Uint8Array | ArrayBuffer} Bytes */

export const TARGET = Object.freeze(['cache', 'group']);

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

/**
 * `db.cache.*`: one method per `cache.*` request; results as the server sends
 * them, `data` as Buffers. An option a method does not take throws a
 * TypeError naming the one most likely meant, before anything is sent.
 */
export class CacheMethods {
  #db;

  /** @param {Larder} db */
  constructor(db) {
    this.#db = db;
  }

  /**
   * `cache.open`: creates a cache or changes its settings. `memory` and
   * `disk` (`{maxCount?, maxBytes?}`) are sent as given: the server refuses a
   * misspelt limit with InvalidParams (`data: {path: 'params.memory.maxCont',
   * expected, suggestion: 'maxCount'}`) and changes nothing.
   * @param {string} [name]
   * @param {import('./index.js').CacheOpenOptions} [options]
   */
  open(name = 'default', options) {
    const known = ['persistent', 'memory', 'disk', 'lifespan', 'returnsExpired'];
    return this.#db.call('cache.open', pick({ cache: name }, checkOptions('cache.open', options, known), known));
  }

  /**
   * `cache.set`: stores `value` (any JSON; a Buffer, Uint8Array or
   * ArrayBuffer is stored as bytes) under `key`, or the bytes `data` (then
   * pass `undefined` as the value). `ttl` in seconds (0: never expires;
   * default: the cache's lifespan). A value JSON cannot hold (NaN, Infinity,
   * a function, undefined) throws a TypeError before anything is sent.
   * Resolves `{stored: true, size}` once committed.
   * @param {string} key
   * @param {unknown} value
   * @param {import('./index.js').CacheSetOptions} [options]
   */
  set(key, value, options) {
    const { data, ttl, cache, group } = checkOptions('cache.set', options, ['data', 'ttl', ...TARGET]);
    const params = putStored({ key }, value, data, 'cache.set');
    if (ttl !== undefined) params.ttl = ttl;
    if (cache !== undefined) params.cache = cache;
    if (group !== undefined) params.group = group;
    return this.#db.call('cache.set', params);
  }

  /**
   * `cache.get`: `{found: false}` or `{found: true, value | data, expired, storedAt, expiresAt?, tier}`.
   * @param {string} key
   * @param {import('./index.js').Target} [options]
   */
  async get(key, options) {
    const params = { key };
    if (options !== undefined) pick(params, checkOptions('cache.get', options, TARGET), TARGET);
    return decodeLookup(await this.#db.call('cache.get', params));
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
   * ttl?, group?}`, or a Map / plain object from key to value. `ttl` applies
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
   * `cache.remove`: `{removed}`.
   * @param {string} key
   * @param {import('./index.js').Target} [options]
   */
  remove(key, options) {
    return this.#db.call('cache.remove', pick({ key }, checkOptions('cache.remove', options, TARGET), TARGET));
  }

  /**
   * `cache.touch`: restarts the entry's lifetime; `{found}`.
   * @param {string} key
   * @param {import('./index.js').Target} [options]
   */
  touch(key, options) {
    return this.#db.call('cache.touch', pick({ key }, checkOptions('cache.touch', options, TARGET), TARGET));
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
   * `cache.subscribe`: events for one cache (`'name'` or `{cache}`), or (none given) for all.
   * @param {string | {cache?: string}} [name]
   */
  subscribe(name) {
    if (name !== null && typeof name === 'object') name = checkOptions('cache.subscribe', name, ['cache']).cache;
    return this.#db.call('cache.subscribe', name === undefined ? {} : { cache: name });
  }
}
