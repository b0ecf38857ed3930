// `db.store.*`: what acts on every cache of the store at once.

import { checkOptions, pick } from './options.js';

/** @typedef {import('./client.js').Larder} Larder */

/** `db.store.*`. An unknown option throws a TypeError, as for `db.cache`. */
export class StoreMethods {
  #db;

  /** @param {Larder} db */
  constructor(db) {
    this.#db = db;
  }

  /**
   * `store.clear`: removes entries from every cache of the store. `kind`:
   * 'objects' removes only the objects (what `object.put` stored; HMCache's
   * `+clearCache`), 'caches' only the plain entries (`cache.set`'s), 'all'
   * (the server's default) both. Durable stores (`cache.open` with `kind:
   * 'store'`) are left alone unless `includeStores: true`. Schemas, entity
   * models and entity records are never touched; caches keep their settings.
   * Resolves `{removed, caches: [{cache, removed}]}`, one member per cache
   * that lost entries (each also sends `cache.cleared` to subscribers).
   * @param {{kind?: 'all' | 'objects' | 'caches', includeStores?: boolean}} [options]
   */
  clear(options) {
    const known = ['kind', 'includeStores'];
    return this.#db.call('store.clear', pick({}, checkOptions('store.clear', options, known), known));
  }
}
