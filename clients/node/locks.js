// `db.lock`: leases on names (SPEC 6.13). `db.lock.acquire/renew/release/list`
// are the methods; `await db.lock(name, {ttl, wait})` takes a lease and keeps
// it renewed until `lease.release()`.
//
// A lease is held until it expires by the store's clock; renewing it is what
// keeps it. A holder that is paused, cut off or slow to renew may lose it
// without knowing until its next renewal is refused: mutual exclusion holds
// only while the lease does, so a write the lease protects should carry its
// fencing `token`, which only grows per name, and the resource written to
// should refuse a token lower than one it has seen.

import { performance } from 'node:perf_hooks';
import { LarderError, LockNotAcquired, LockNotHeldError } from './errors.js';
import { checkOptions, pick } from './options.js';

/** @typedef {import('./client.js').Larder} Larder */

/** The `lock.*` methods. An unknown option throws a TypeError, as for `db.cache`. */
export class LockMethods {
  #db;

  /** @param {Larder} db */
  constructor(db) {
    this.#db = db;
  }

  /**
   * `lock.acquire`: takes the lease on `name` for `ttl` seconds under a new
   * fencing token if nobody holds it; with `wait`, waits up to that many
   * seconds for it (other calls are answered meanwhile). Resolves
   * `{acquired: true, token, expiresAt}` or `{acquired: false,
   * holderExpiresAt, heldHere}`.
   * @param {string} name
   * @param {{ttl: number, wait?: number}} options
   */
  acquire(name, options) {
    const known = ['ttl', 'wait'];
    return this.#db.call('lock.acquire', pick({ name }, checkOptions('lock.acquire', options, known), known));
  }

  /**
   * `lock.renew`: extends the live lease `token` on `name` to `ttl` seconds
   * from now: `{token, expiresAt}`. Rejects with LockNotHeldError when
   * `token` is not the live lease's (it expired, was released, or another
   * holds the name).
   * @param {string} name
   * @param {number} token
   * @param {{ttl: number}} options
   */
  renew(name, token, options) {
    const known = ['ttl'];
    return this.#db.call('lock.renew', pick({ name, token }, checkOptions('lock.renew', options, known), known));
  }

  /**
   * `lock.release`: gives the lease back: `{released: true}`, or `false`
   * when it had expired or was released already and nobody took the name
   * since. Rejects with LockNotHeldError when another lease on the name came
   * after `token`.
   * @param {string} name
   * @param {number} token
   */
  release(name, token) {
    return this.#db.call('lock.release', { name, token });
  }

  /**
   * `lock.list`: the store's live leases, whoever holds them, by name in
   * byte order: `{locks: [{name, token, expiresAt, heldHere}]}`; `prefix`
   * keeps the names that begin with it.
   * @param {{prefix?: string}} [options]
   */
  list(options) {
    const known = ['prefix'];
    return this.#db.call('lock.list', pick({}, checkOptions('lock.list', options, known), known));
  }
}

/**
 * A lease taken by `db.lock(name, {ttl, wait, renewEvery})`, renewed every
 * `renewEvery` seconds (a third of `ttl` unless given) by a timer that does
 * not keep the process alive, until `release()`.
 *
 * When a renewal is refused (LockNotHeldError), or fails until `ttl` has
 * passed since the last one that succeeded, the lease is lost: `lost` turns
 * true at once, `error` says why, and `release()` rejects with it.
 */
export class Lease {
  #methods;
  #every;
  #timer;
  #renewing = Promise.resolve();
  #released;
  /** performance.now() by which the lease has certainly expired unless a renewal sent before it succeeded. */
  #validUntil;

  /**
   * Use `db.lock(name, options)`.
   * @param {LockMethods} methods
   * @param {string} name
   * @param {{acquired: true, token: number, expiresAt: string}} answer
   * @param {number} ttl
   * @param {number} every
   * @param {number} sent
   */
  constructor(methods, name, answer, ttl, every, sent) {
    this.#methods = methods;
    this.#every = every;
    this.#validUntil = sent + ttl * 1000;
    /** The lock's name. */
    this.name = name;
    /** The fencing token: send it with every write the lease protects. */
    this.token = answer.token;
    /** The seconds each renewal asks for. */
    this.ttl = ttl;
    /** When the lease expires unless renewed again (ISO 8601, by the store's clock), as last answered. */
    this.expiresAt = answer.expiresAt;
    /** Why the lease was lost, or undefined. */
    this.error = undefined;
    this.#schedule();
  }

  /** Whether this holder can no longer count on the lease: a renewal was refused (`error`), or `ttl` passed since the last renewal that succeeded was sent. */
  get lost() {
    return this.error !== undefined || performance.now() >= this.#validUntil;
  }

  #schedule() {
    this.#timer = setTimeout(() => {
      this.#renewing = this.#renew();
    }, this.#every * 1000);
    this.#timer.unref();
  }

  async #renew() {
    const sent = performance.now();
    try {
      const answer = await this.#methods.renew(this.name, this.token, { ttl: this.ttl });
      this.expiresAt = answer.expiresAt;
      this.#validUntil = sent + this.ttl * 1000;
    } catch (err) {
      // A refusal loses the lease; any other failure only once ttl has
      // passed since the last renewal that succeeded, retried until then.
      if (!(err instanceof LarderError) || err instanceof LockNotHeldError || performance.now() >= this.#validUntil) {
        this.error = err;
      }
    }
    if (this.error === undefined && this.#released === undefined) this.#schedule();
  }

  /**
   * Stops renewing and gives the lease back. Rejects with `error` when the
   * lease was lost (a lease that had expired before it was released is lost
   * too). Calling it again returns the same promise.
   * @returns {Promise<void>}
   */
  release() {
    this.#released ??= this.#release();
    return this.#released;
  }

  async #release() {
    clearTimeout(this.#timer);
    await this.#renewing;
    if (this.error === undefined) {
      const answer = await this.#methods.release(this.name, this.token);
      if (!answer.released) {
        this.error = new LockNotHeldError(
          `the lease on ${JSON.stringify(this.name)} (token ${this.token}) had expired before it was released`,
          { name: this.name, token: null },
        );
      }
    }
    if (this.error !== undefined) throw this.error;
  }
}

/**
 * Takes the lease on `name` (see `db.lock`); rejects with LockNotAcquired
 * when it is held and `wait` ran out.
 * @param {LockMethods} methods
 * @param {string} name
 * @param {{ttl: number, wait?: number, renewEvery?: number}} options
 */
async function takeLease(methods, name, options) {
  const { ttl, wait, renewEvery } = checkOptions('lock', options, ['ttl', 'wait', 'renewEvery']);
  if (typeof ttl !== 'number' || !(ttl > 0)) throw new RangeError(`lock: ttl must be a number of seconds more than 0, not ${ttl}`);
  const every = renewEvery ?? ttl / 3;
  if (!(every > 0 && every < ttl)) {
    throw new RangeError(`lock: renewEvery must be more than 0 and less than ttl (${ttl} s), not ${every}`);
  }
  const sent = performance.now();
  const answer = await methods.acquire(name, { ttl, wait });
  if (!answer.acquired) throw new LockNotAcquired(name, answer.holderExpiresAt, answer.heldHere, wait);
  return new Lease(methods, name, answer, ttl, every, sent);
}

/**
 * `db.lock`: a function taking a lease (`await db.lock(name, {ttl, wait,
 * renewEvery})`, a Lease) with the `lock.*` methods as its members.
 * @param {Larder} db
 */
export function locks(db) {
  const methods = new LockMethods(db);
  return Object.assign((name, options) => takeLease(methods, name, options), {
    acquire: methods.acquire.bind(methods),
    renew: methods.renew.bind(methods),
    release: methods.release.bind(methods),
    list: methods.list.bind(methods),
  });
}
