// Stores on PostgreSQL through the client and the real sidecar: a value
// outlives its sidecar, two sidecars on one schema see each other's
// acknowledged writes (with notify coherence, once the notification arrives),
// leases, counters, compare-and-sets and transactions, the coherence asked
// for is the one kept, and pgSchema or pgCoherence without such a store, or a
// misspelt coherence, is refused.
//
// The server is $LARDER_TEST_PG_URL (.ci/with-postgres sets it for a
// throwaway cluster; or point it at a database of your own, whose role may
// create schemas). Without it these tests are skipped, and fail under
// CI=true. Each test works in a schema of its own, dropped afterwards with psql.
import { test, prerequisite } from './support.js';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { InvalidParams, Larder, SidecarExited } from '../index.js';
import { ACCOUNTS, CAS_WORKER, INCR_WORKER, OPENING, bankTransfers, fourProcesses } from './processes.js';

const SERVER = process.env.LARDER_TEST_PG_URL ?? '';
/** A store on PostgreSQL for the refusals, which come before any connection. */
const NO_SERVER = 'postgresql://larder@db.invalid/app';
/**
 * How long, in ms, a sidecar with notify coherence may take to read another's
 * acknowledged write: a notification's delay, with room for a loaded machine.
 */
const NOTIFIED_WITHIN = 2000;
const psql = spawnSync('psql', ['--version'], { encoding: 'utf8' });
const noServer = prerequisite(
  (SERVER === '' && 'LARDER_TEST_PG_URL is not set: run the tests under .ci/with-postgres, or point it at a database') ||
  (!/^postgres(ql)?:\/\//.test(SERVER) && 'LARDER_TEST_PG_URL is not a postgresql:// URL, the form the clients\' tests pass to --store') ||
  (psql.status !== 0 && 'no psql to drop the tests\' schemas with (Debian: apt-get install postgresql-client)'),
);

/** A schema name no other test uses; the schema the sidecars make in it is dropped, with everything in it, after `t`. */
function schemaFor(t) {
  const schema = `larder_test_${process.pid}_${randomInt(2 ** 32)}`;
  t.after(() => {
    const r = spawnSync('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', SERVER, '-c', `DROP SCHEMA IF EXISTS "${schema}" CASCADE`],
      { encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 0, r.stderr);
  });
  return schema;
}

/**
 * Runs `body(...dbs)` on `count` sidecars of the store in `schema`, closing
 * them afterwards; `options` are the other options of each `spawn`.
 */
async function withSidecars(schema, count, body, options = {}) {
  const dbs = [];
  try {
    for (let i = 0; i < count; i++) dbs.push(await Larder.spawn({ store: SERVER, pgSchema: schema, ...options }));
    return await body(...dbs);
  } finally {
    await Promise.all(dbs.map((db) => db.close()));
  }
}

test('a value outlives its sidecar', { skip: noServer }, async (t) => {
  const schema = schemaFor(t);
  await withSidecars(schema, 1, async (db) => {
    assert.equal(db.server.store.persistent, true);
    assert.ok(db.server.store.path.endsWith(` schema ${schema}`), db.server.store.path);
    assert.equal(db.server.store.coherence, 'strict', 'the default');
    await db.cache.open('profiles', { disk: { maxCount: 100 } });
    await db.cache.set('user:1', { name: 'Ada' }, { cache: 'profiles' });
    await db.cache.set('avatar', new Uint8Array([0, 255]), { cache: 'profiles' });
  });
  // The second sidecar starts in memory and switches with initialize {store: {url, schema}}.
  const db = await Larder.spawn({ memory: true, initialize: false });
  try {
    const { store } = await db.initialize({ store: SERVER, pgSchema: schema });
    assert.equal(store.persistent, true);
    assert.ok(store.path.endsWith(` schema ${schema}`), store.path);
    assert.deepEqual((await db.cache.get('user:1', { cache: 'profiles' })).value, { name: 'Ada' });
    assert.deepEqual([...(await db.cache.get('avatar', { cache: 'profiles' })).data], [0, 255]);
    assert.equal((await db.cache.stats({ cache: 'profiles' })).disk.count, 2);
  } finally {
    await db.close();
  }
});

test('a write acknowledged through one sidecar is read through another', { skip: noServer }, async (t) => {
  await withSidecars(schemaFor(t), 2, async (a, b) => {
    await a.cache.set('k', 'old');
    assert.equal((await b.cache.get('k')).value, 'old');
    assert.equal((await b.cache.get('k')).tier, 'memory', 'b now holds the value in its memory tier');
    await a.cache.set('k', 'new'); // answered: committed
    assert.equal((await b.cache.get('k')).value, 'new', 'b\'s next call is a new burst, which finds a\'s commit');
    await b.cache.set('k', 'newer');
    assert.equal((await a.cache.get('k')).value, 'newer');
    await a.cache.remove('k');
    assert.equal((await b.cache.get('k')).found, false);
  });
});

test('a lease held through one sidecar is refused through another until released', { skip: noServer }, async (t) => {
  await withSidecars(schemaFor(t), 2, async (a, b) => {
    const lease = await a.lock('reports/daily', { ttl: 0.6 });
    const heldUntil = Date.now() + 1500; // 2.5 ttls: held only if renewed
    while (Date.now() < heldUntil) {
      const refused = await b.lock.acquire('reports/daily', { ttl: 5 });
      assert.deepEqual([refused.acquired, refused.heldHere], [false, false]);
    }
    assert.deepEqual([lease.lost, lease.token], [false, 1]);
    await lease.release();
    assert.equal((await b.lock.acquire('reports/daily', { ttl: 5 })).token, 2);
  });
});

test('four sidecars increment one key and lose no update', { skip: noServer }, async (t) => {
  assert.equal(await fourProcesses(INCR_WORKER, SERVER, 250, schemaFor(t)), 1000);
});

test('four sidecars compare-and-set one key and lose no update', { skip: noServer }, async (t) => {
  assert.equal(await fourProcesses(CAS_WORKER, SERVER, 250, schemaFor(t)), 1000);
});

test('four sidecars move money in transactions and neither make nor lose any', { skip: noServer }, async (t) => {
  const { moved, counted, money } = await bankTransfers(SERVER, 100, schemaFor(t));
  assert.equal(money.reduce((a, b) => a + b, 0), OPENING * ACCOUNTS.length, String(money));
  assert.ok(Math.min(...money) >= 0, String(money));
  assert.ok(moved > 0);
  assert.equal(counted, moved);
});

test('pgSchema without a PostgreSQL store is refused', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'larder-node-postgres-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const err = await Larder.spawn({ store: join(dir, 'store'), pgSchema: 'app' }).then(() => assert.fail('started'), (e) => e);
  assert.ok(err instanceof SidecarExited, String(err));
  assert.equal(err.exitCode, 2);
  assert.ok(err.message.includes('--pg-schema needs a store on PostgreSQL: --store postgresql://...'), err.message);
  const db = await Larder.spawn({ memory: true, initialize: false });
  try {
    const refused = await db.initialize({ store: join(dir, 'store'), pgSchema: 'app' }).then(() => assert.fail('accepted'), (e) => e);
    assert.ok(refused instanceof InvalidParams, String(refused));
    assert.ok(refused.message.includes('params.store.schema is for a store on PostgreSQL (url), not for a path'), refused.message);
  } finally {
    await db.close();
  }
});

/** Calls `read` until it resolves to `expected` (compared deeply), failing after NOTIFIED_WITHIN ms. */
async function eventually(read, expected) {
  const deadline = Date.now() + NOTIFIED_WITHIN;
  for (;;) {
    const seen = await read();
    try {
      assert.deepEqual(seen, expected);
      return;
    } catch (err) {
      if (Date.now() >= deadline) throw new Error(`read ${JSON.stringify(seen)} ${NOTIFIED_WITHIN} ms after the write`, { cause: err });
    }
    await sleep(10);
  }
}

test('the coherence asked for is kept', { skip: noServer }, async (t) => {
  const schema = schemaFor(t);
  await withSidecars(schema, 1, async (db) => {
    assert.equal(db.server.store.coherence, 'notify');
  }, { pgCoherence: 'notify' });
  const db = await Larder.spawn({ memory: true, initialize: false });
  try {
    const { store } = await db.initialize({ store: SERVER, pgSchema: schema, pgCoherence: 'poll' });
    assert.equal(store.coherence, 'poll');
  } finally {
    await db.close();
  }
});

test('with notify, a write through one sidecar is read through another once notified', { skip: noServer }, async (t) => {
  await withSidecars(schemaFor(t), 2, async (a, b) => {
    await a.cache.set('k', 'old');
    // b may read 'old' before the notification of its commit arrives and
    // drops the copy; once it has come, b keeps 'old' in its memory tier.
    await eventually(async () => {
      const { value, tier } = await b.cache.get('k');
      return { value, tier };
    }, { value: 'old', tier: 'memory' });
    await a.cache.set('k', 'new'); // answered: committed, and notified
    await eventually(async () => (await b.cache.get('k')).value, 'new');
    await b.cache.set('k', 'newer');
    await eventually(async () => (await a.cache.get('k')).value, 'newer');
  }, { pgCoherence: 'notify' });
});

test('a misspelt coherence is refused', async () => {
  const err = await Larder.spawn({ store: NO_SERVER, pgCoherence: 'strcit' }).then(() => assert.fail('started'), (e) => e);
  assert.ok(err instanceof SidecarExited, String(err));
  assert.equal(err.exitCode, 2);
  assert.ok(err.message.includes('--pg-coherence must be strict, notify or poll, not "strcit" (did you mean strict?)'), err.message);
  const db = await Larder.spawn({ memory: true, initialize: false });
  try {
    const refused = await db.initialize({ store: NO_SERVER, pgCoherence: 'notfy' }).then(() => assert.fail('accepted'), (e) => e);
    assert.ok(refused instanceof InvalidParams, String(refused));
    assert.ok(
      refused.message.includes('params.store.coherence must be strict, notify or poll, not "notfy" (did you mean notify?)'),
      refused.message,
    );
  } finally {
    await db.close();
  }
});

test('pgCoherence without a PostgreSQL store is refused', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'larder-node-postgres-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const where of [{ store: join(dir, 'store') }, { memory: true }]) {
    const err = await Larder.spawn({ ...where, pgCoherence: 'notify' }).then(() => assert.fail('started'), (e) => e);
    assert.ok(err instanceof SidecarExited, String(err));
    assert.equal(err.exitCode, 2);
    assert.ok(err.message.includes('--pg-coherence needs a store on PostgreSQL: --store postgresql://...'), err.message);
  }
  const db = await Larder.spawn({ memory: true, initialize: false });
  try {
    const refused = await db.initialize({ store: join(dir, 'store'), pgCoherence: 'notify' }).then(() => assert.fail('accepted'), (e) => e);
    assert.ok(refused instanceof InvalidParams, String(refused));
    assert.ok(refused.message.includes('params.store.coherence is for a store on PostgreSQL (url), not for a path'), refused.message);
  } finally {
    await db.close();
  }
});
