// `CacheView`: one cache (and group) as an async, Map-like object.

import { CacheNotFound } from './errors.js';
import { checkOptions } from './options.js';

/** @typedef {import('./client.js').Larder} Larder */

/** What a found `cache.get` answer holds: its value, or its bytes as a Buffer. */
function stored(r) {
  return 'data' in r ? r.data : r.value;
}

/** One cache (and group) as an async, Map-like object. Make one with `db.cacheView`. */
export class CacheView {
  #db;
  #target;

  /**
   * @param {Larder} db
   * @param {string} [name]
   * @param {string} [group]
   * @param {number} [ttl]
   */
  constructor(db, name = 'default', group = '', ttl) {
    this.#db = db;
    /** The cache's name. */
    this.name = name;
    /** The group within the cache. */
    this.group = group;
    /** Seconds to live for `set` and `setMany` (undefined: the cache's lifespan). */
    this.ttl = ttl;
    this.#target = { cache: name, group };
  }

  /**
   * The value (JSON, or a Buffer for bytes), or undefined when not found.
   * @param {string} key
   */
  async get(key) {
    const r = await this.#db.cache.get(key, this.#target);
    return r.found ? stored(r) : undefined;
  }

  /**
   * Everything `cache.get` says about the key.
   * @param {string} key
   */
  entry(key) {
    return this.#db.cache.get(key, this.#target);
  }

  /**
   * Stores a value (bytes as bytes); `ttl` in seconds. Resolves with the view.
   * A value JSON cannot hold throws a TypeError, as for `cache.set`.
   * @param {string} key
   * @param {unknown} value
   * @param {{ttl?: number}} [options]
   */
  set(key, value, options) {
    const { ttl = this.ttl } = checkOptions('CacheView.set', options, ['ttl']);
    return this.#db.cache.set(key, value, { ttl, ...this.#target }).then(() => this);
  }

  /**
   * Removes the key; whether it was there.
   * @param {string} key
   */
  async delete(key) {
    return (await this.#db.cache.remove(key, this.#target)).removed;
  }

  /**
   * Whether the key is stored and not expired.
   * @param {string} key
   */
  async has(key) {
    return (await this.#db.cache.has(key, this.#target)).valid;
  }

  /**
   * Restarts the key's lifetime; whether it was there.
   * @param {string} key
   */
  async touch(key) {
    return (await this.#db.cache.touch(key, this.#target)).found;
  }

  /**
   * A Map of the keys found to their values.
   * @param {Iterable<string>} keys
   * @returns {Promise<Map<string, unknown>>}
   */
  async getMany(keys) {
    const { entries } = await this.#db.cache.getMany(keys, this.#target);
    const found = new Map();
    for (const [k, r] of Object.entries(entries)) if (r.found) found.set(k, stored(r));
    return found;
  }

  /**
   * Stores every key of a Map or object, all or none.
   * @param {Map<string, unknown> | Record<string, unknown>} entries
   * @param {{ttl?: number}} [options]
   */
  setMany(entries, options) {
    const { ttl = this.ttl } = checkOptions('CacheView.setMany', options, ['ttl']);
    return this.#db.cache.setMany(entries, { ttl, ...this.#target });
  }

  /**
   * Every key, in byte order.
   * @param {{prefix?: string, pageSize?: number}} [options]
   * @returns {AsyncGenerator<string>}
   */
  keys(options) {
    const { prefix, pageSize } = checkOptions('CacheView.keys', options, ['prefix', 'pageSize']);
    return this.#db.cache.iterKeys({ prefix, pageSize, ...this.#target });
  }

  /**
   * `[key, value]` pairs for every key (one `get` each).
   * @param {{prefix?: string, pageSize?: number}} [options]
   * @returns {AsyncGenerator<[string, unknown]>}
   */
  async *entries(options) {
    const { prefix, pageSize } = checkOptions('CacheView.entries', options, ['prefix', 'pageSize']);
    for await (const key of this.keys({ prefix, pageSize })) {
      const r = await this.#db.cache.get(key, this.#target);
      if (r.found) yield [key, stored(r)];
    }
  }

  /**
   * Empties the view's group; how many entries went (0 for a cache that does not exist).
   * @param {{tier?: 'memory' | 'disk' | 'all'}} [options]
   */
  async clear(options) {
    const { tier } = checkOptions('CacheView.clear', options, ['tier']);
    try {
      return (await this.#db.cache.clear({ tier, ...this.#target })).removed;
    } catch (err) {
      if (err instanceof CacheNotFound) return 0;
      throw err;
    }
  }

  /** `cache.stats` of the view's cache. */
  stats() {
    return this.#db.cache.stats({ cache: this.name });
  }

  /** The keys, as `keys()`. */
  [Symbol.asyncIterator]() {
    return this.keys();
  }
}
