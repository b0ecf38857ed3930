// Transactions over several keys (`cache.transaction`, after etcd's Txn):
// `db.transaction()` builds one, `await txn.commit()` sends it as one
// request.
//
//   const txn = db.transaction({ cache: 'accounts' });
//   txn.ifRevision('alice', aliceRevision).ifRevision('bob', bobRevision);
//   txn.set('alice', alice - 10).set('bob', bob + 10);
//   txn.else.get('alice').get('bob');
//   const { succeeded, results, failed } = await txn.commit();
//
// The comparisons are evaluated together, at one instant; if every one holds
// the operations added to the transaction itself are applied, in order, else
// those added to `txn.else`: all of the branch or nothing, answered once
// committed. A comparison that does not hold is not an error: the result says
// `succeeded: false` and names the first one in `failed` (`commit({check:
// true})` rejects with ConditionFailed instead).

import { TARGET, checkJSON, putStored } from './cache.js';
import { ConditionFailed } from './errors.js';
import { checkOptions, pick } from './options.js';

/** @typedef {import('./client.js').Larder} Larder */

const OPERATIONS = Symbol('operations');

/** An element naming `key`: the transaction's `cache` and `group`, `options`' first. */
function inScope(fields, scope, options) {
  return pick(pick(fields, scope, TARGET), options, TARGET);
}

/**
 * One branch of a Transaction: the operations applied, in order, when it is
 * chosen. Each method adds one and returns the branch, so calls chain; its
 * result takes that place in `results`. `cache` and `group` default to the
 * transaction's. An option a method does not take throws a TypeError naming
 * the one most likely meant.
 */
export class TransactionBranch {
  #scope;
  [OPERATIONS] = [];

  /** @param {{cache?: string, group?: string}} scope */
  constructor(scope) {
    this.#scope = scope;
  }

  #add(op, key, options, fields = {}) {
    this[OPERATIONS].push(inScope({ op, key, ...fields }, this.#scope, options));
    return this;
  }

  /**
   * Stores `value` (any JSON; bytes as bytes) or `options.data`, as
   * `db.cache.set` does (creating the cache if needed); its result is
   * `{revision}`, the entry's new revision.
   * @param {string} key
   * @param {unknown} value
   * @param {{data?: import('./cache.js').Bytes | string, ttl?: number, cache?: string, group?: string}} [options]
   */
  set(key, value, options) {
    const given = checkOptions('transaction.set', options, ['data', 'ttl', ...TARGET]);
    return this.#add('set', key, given, pick(putStored({}, value, given.data, 'transaction.set'), given, ['ttl']));
  }

  /**
   * Removes the entry: `{removed}`, whether there was one.
   * @param {string} key
   * @param {{cache?: string, group?: string}} [options]
   */
  remove(key, options) {
    return this.#add('remove', key, checkOptions('transaction.remove', options, TARGET));
  }

  /**
   * Adds `by` (default 1) to the integer under `key`, from `initial`
   * (default 0) where there is none, as `db.cache.increment` does:
   * `{value, revision}`. A live value that is not such an integer rejects
   * the whole transaction with NotAnInteger (`index`, `branch`).
   * @param {string} key
   * @param {{by?: number, initial?: number, ttl?: number, cache?: string, group?: string}} [options]
   */
  increment(key, options) {
    const given = checkOptions('transaction.increment', options, ['by', 'initial', 'ttl', ...TARGET]);
    return this.#add('increment', key, given, pick({}, given, ['by', 'initial', 'ttl']));
  }

  /**
   * `increment` by `-by` (default 1).
   * @param {string} key
   * @param {{by?: number, initial?: number, ttl?: number, cache?: string, group?: string}} [options]
   */
  decrement(key, options) {
    const given = checkOptions('transaction.decrement', options, ['by', 'initial', 'ttl', ...TARGET]);
    return this.#add('increment', key, given, pick({ by: -(given.by ?? 1) }, given, ['initial', 'ttl']));
  }

  /**
   * Reads the entry after the operations before it: what `db.cache.get`
   * answers (`data` as a Buffer).
   * @param {string} key
   * @param {{cache?: string, group?: string}} [options]
   */
  get(key, options) {
    return this.#add('get', key, checkOptions('transaction.get', options, TARGET));
  }
}

/**
 * A transaction being built (`db.transaction({cache, group})`): comparisons
 * (`if*`), the operations applied when they all hold (added to the
 * transaction itself) and those applied otherwise (added to `else`). Each
 * method returns the transaction, so calls chain. Build a new one for each
 * try: what it compares is what was read before it.
 */
export class Transaction extends TransactionBranch {
  #db;
  #scope;
  #compare = [];
  /** The operations applied when a comparison does not hold. */
  else;

  /**
   * @param {Larder} db
   * @param {{cache?: string, group?: string}} [scope]
   */
  constructor(db, scope = {}) {
    super(scope);
    this.#db = db;
    this.#scope = scope;
    this.else = new TransactionBranch(scope);
  }

  #comparison(key, options, test, what) {
    this.#compare.push(inScope({ key, ...test }, this.#scope, checkOptions(what, options, TARGET)));
    return this;
  }

  /**
   * Holds when the live entry is at `revision`; null holds when there is no
   * live entry (as `ifAbsent`), so what `db.cache.get` answered can be given
   * as it is (`entry.revision ?? null`).
   * @param {string} key
   * @param {number | null} revision
   * @param {{cache?: string, group?: string}} [options]
   */
  ifRevision(key, revision, options) {
    if (revision === null) return this.ifAbsent(key, options);
    return this.#comparison(key, options, { revision }, 'transaction.ifRevision');
  }

  /**
   * Holds when there is no live entry (an expired one is none, unless the
   * cache returns expired entries).
   * @param {string} key
   * @param {{cache?: string, group?: string}} [options]
   */
  ifAbsent(key, options) {
    return this.#comparison(key, options, { absent: true }, 'transaction.ifAbsent');
  }

  /**
   * Holds when there is a live entry.
   * @param {string} key
   * @param {{cache?: string, group?: string}} [options]
   */
  ifPresent(key, options) {
    return this.#comparison(key, options, { present: true }, 'transaction.ifPresent');
  }

  /**
   * Holds when the live entry's JSON value equals `value` (objects whatever
   * the order of their members); an entry of bytes, or none, never does.
   * @param {string} key
   * @param {unknown} value
   * @param {{cache?: string, group?: string}} [options]
   */
  ifValue(key, value, options) {
    if (value instanceof Uint8Array || value instanceof ArrayBuffer) {
      throw new TypeError('transaction.ifValue compares JSON values; an entry of bytes equals none');
    }
    checkJSON(value, 'transaction.ifValue: value');
    return this.#comparison(key, options, { value }, 'transaction.ifValue');
  }

  /**
   * Sends the transaction (`cache.transaction`). Resolves `{succeeded,
   * results, failed?}`: `results` holds the result of each operation of the
   * branch applied, in order; `failed`, only when `succeeded` is false, the
   * first comparison that did not hold, `{index, key, revision}` (revision
   * null when there is no live entry). `check: true` rejects with
   * ConditionFailed (`index`, `key`, `revision`) instead, the else branch
   * applied all the same. Nothing is written when it rejects with anything
   * else: NotAnInteger (`index`, `branch`) from an increment, InvalidParams
   * naming an element the server cannot read (`compare[2]: ...`).
   * @param {{check?: boolean}} [options]
   */
  async commit(options) {
    const { check = false } = checkOptions('transaction.commit', options, ['check']);
    const request = {};
    if (this.#compare.length) request.compare = this.#compare;
    if (this[OPERATIONS].length) request.then = this[OPERATIONS];
    if (this.else[OPERATIONS].length) request.else = this.else[OPERATIONS];
    const result = await this.#db.cache.transaction(request);
    if (check && !result.succeeded) {
      const { index, key, revision } = result.failed;
      throw new ConditionFailed(`compare[${index}] on ${JSON.stringify(key)} did not hold (its revision is ${revision})`,
        result.failed);
    }
    return result;
  }
}
