// cache.getOrFetch against the real binary: the client answers cache.fetch and cache.fallback.
import { test, before, after } from './support.js';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Larder, FetchFailed, NOT_FOUND, LarderError } from '../index.js';

const CLOCK = '2026-01-01T00:00:00Z';
let db;

before(async () => {
  db = await Larder.spawn({ memory: true, fallback: true, args: ['--enable-test-methods', '--clock', CLOCK] });
});
after(async () => {
  await db?.close();
});

test('initialize declares fetch and fallback', () => {
  assert.equal(db.fallback, true);
});

test('a miss is fetched, stored and then a hit', async () => {
  const seen = [];
  const r = await db.cache.getOrFetch('user:1', async (key, ctx) => {
    seen.push([key, ctx.cache, ctx.group, ctx.attempt]);
    return { name: 'Ada' };
  });
  assert.deepEqual(seen, [['user:1', 'default', '', 1]]);
  assert.equal(r.found, true);
  assert.deepEqual(r.value, { name: 'Ada' });
  assert.equal(r.fetched, true);
  assert.equal(r.stored, true);
  assert.equal(r.attempts, 1);
  assert.deepEqual((await db.cache.get('user:1')).value, { name: 'Ada' });
  const hit = await db.cache.getOrFetch('user:1', () => assert.fail('not asked on a hit'));
  assert.equal(hit.fetched, false);
  assert.deepEqual(hit.value, { name: 'Ada' });
});

test('a fetcher failing twice succeeds on the third attempt', async () => {
  const attempts = [];
  const r = await db.cache.getOrFetch('user:2', async (key, { attempt }) => {
    attempts.push(attempt);
    if (attempt < 3) throw new Error('upstream 503');
    return { name: 'Grace' };
  }, { retries: 3, retryDelayMs: [1, 5] });
  assert.deepEqual(attempts, [1, 2, 3]);
  assert.equal(r.attempts, 3);
  assert.equal(r.stored, true);
  assert.deepEqual(r.value, { name: 'Grace' });
});

test('every attempt failing rejects with FetchFailed', async () => {
  let calls = 0;
  await assert.rejects(
    db.cache.getOrFetch('user:3', async () => {
      calls++;
      throw Object.assign(new Error('no such user'), { code: 404 });
    }, { retries: 1, retryDelayMs: [1, 1] }),
    (err) => {
      assert.ok(err instanceof FetchFailed);
      assert.equal(err.code, -31050);
      assert.equal(err.data.attempts, 2);
      assert.deepEqual(err.data.lastError, { code: 404, message: 'no such user' });
      return true;
    },
  );
  assert.equal(calls, 2);
  assert.deepEqual(await db.cache.has('user:3'), { found: false, valid: false });
});

test('undefined and NOT_FOUND answer a miss, not stored', async () => {
  for (const [key, result] of [['nf:1', undefined], ['nf:2', NOT_FOUND]]) {
    const r = await db.cache.getOrFetch(key, async () => result);
    assert.deepEqual(r, { found: false, fetched: true, attempts: 1 });
  }
});

test('bytes are stored as data, with the ttl the fetcher sets', async () => {
  const r = await db.cache.getOrFetch('bytes', async (key, ctx) => {
    ctx.ttl = 60;
    return Buffer.from([0xde, 0xad, 0xbe, 0xef]);
  });
  assert.ok(Buffer.isBuffer(r.data));
  assert.deepEqual([...r.data], [0xde, 0xad, 0xbe, 0xef]);
  assert.equal(r.expiresAt, '2026-01-01T00:01:00.000Z');
});

test('a value JSON cannot hold rejects with a TypeError', async () => {
  await assert.rejects(db.cache.getOrFetch('nan', async () => ({ price: NaN }), { retries: 0 }), (err) => {
    assert.ok(err instanceof TypeError);
    assert.match(err.message, /\.price is NaN/);
    assert.ok(err.cause instanceof FetchFailed);
    return true;
  });
  assert.equal((await db.cache.has('nan')).found, false);
});

test('50 concurrent calls for one key: one fetch, 50 answers', async () => {
  let calls = 0;
  let release;
  const gate = new Promise((resolve) => (release = resolve));
  const fetcher = async () => {
    calls++;
    await gate;
    return 'shared';
  };
  const all = Promise.all(Array.from({ length: 50 }, () => db.cache.getOrFetch('flight', fetcher)));
  setTimeout(release, 20);
  const results = await all;
  assert.equal(calls, 1);
  assert.equal(results.length, 50);
  for (const r of results) {
    assert.equal(r.value, 'shared');
    assert.equal(r.fetched, true);
  }
});

test('concurrent calls for different keys each get their own fetcher', async () => {
  const keys = Array.from({ length: 20 }, (_, i) => `many:${i}`);
  const results = await Promise.all(keys.map((key, i) =>
    db.cache.getOrFetch(key, async (k) => {
      assert.equal(k, key);
      await new Promise((resolve) => setTimeout(resolve, 20 - i));
      return i;
    })));
  assert.deepEqual(results.map((r) => r.value), keys.map((_, i) => i));
});

test('cache.open registers a cache-wide fetcher and fallback; a per-call fetcher wins', async () => {
  const asked = [];
  const opened = await db.cache.open('rates', {
    lifespan: 60,
    fetch: { retries: 1, retryDelayMs: [1, 1] },
    fetcher: async (key, { cache, group }) => {
      asked.push([cache, group, key]);
      if (key === 'chf') throw new Error('upstream 503');
      return 1.08;
    },
    fallback: async (key, { error }) => {
      assert.ok(error instanceof LarderError);
      assert.equal(error.message, 'upstream 503');
      return key === 'chf' ? 0.95 : undefined;
    },
  });
  assert.equal(opened.config.fetch.retries, 1);
  const usd = await db.cache.getOrFetch('usd', { cache: 'rates', group: 'fx' });
  assert.equal(usd.value, 1.08);
  assert.deepEqual(asked, [['rates', 'fx', 'usd']]);
  const eur = await db.cache.getOrFetch('eur', async () => 1.0, { cache: 'rates' });
  assert.equal(eur.value, 1);
  assert.equal(asked.length, 1);
  const chf = await db.cache.getOrFetch('chf', undefined, { cache: 'rates' });
  assert.equal(chf.value, 0.95);
  assert.equal(chf.fallback, true);
  assert.equal(chf.fetched, false);
  assert.equal(chf.attempts, 2);
  assert.equal((await db.cache.has('chf', { cache: 'rates' })).found, false);
});

test('a fetch past timeoutMs is cancelled: the fetcher sees its signal abort', async () => {
  let aborted;
  const done = new Promise((resolve) => (aborted = resolve));
  await assert.rejects(
    db.cache.getOrFetch('slow', (key, { signal }) => new Promise((resolve) => {
      signal.addEventListener('abort', () => { aborted(true); resolve('too late'); });
    }), { timeoutMs: 50, retries: 0 }),
    FetchFailed,
  );
  assert.equal(await done, true);
});

test('without a fetcher anywhere, getOrFetch of a miss fails', async () => {
  await assert.rejects(db.cache.getOrFetch('nobody', { retries: 0 }), (err) => {
    assert.ok(err instanceof FetchFailed);
    assert.match(err.data.lastError.message, /no fetcher/);
    return true;
  });
});

test('options are checked before anything is sent', async () => {
  await assert.rejects(db.cache.getOrFetch('k', async () => 1, { retrys: 1 }), /retries/);
  await assert.rejects(db.cache.getOrFetch('k', 'nope'), TypeError);
});

test('two sidecars on one store directory fetch a shared key once', async () => {
  const store = mkdtempSync(join(tmpdir(), 'larder-shared-fetch-'));
  const [a, b] = await Promise.all([Larder.spawn({ store }), Larder.spawn({ store })]);
  try {
    const calls = [];
    const fetcher = (n) => async () => {
      calls.push(n);
      await new Promise((resolve) => setTimeout(resolve, 500));
      return { from: n };
    };
    const answers = await Promise.all([
      a.cache.getOrFetch('hot', fetcher(0), { shared: true, timeoutMs: 20000 }),
      b.cache.getOrFetch('hot', fetcher(1), { shared: true, timeoutMs: 20000 }),
    ]);
    assert.equal(calls.length, 1);
    assert.deepEqual(answers.map((r) => r.value), [{ from: calls[0] }, { from: calls[0] }]);
    assert.equal(answers[1 - calls[0]].fetched, false);
    assert.equal(answers[1 - calls[0]].fetchedElsewhere, true);
  } finally {
    await Promise.all([a.close(), b.close()]);
    rmSync(store, { recursive: true, force: true });
  }
});
