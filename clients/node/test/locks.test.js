// Leases on names (SPEC 6.13) through the client: db.lock.acquire/renew/
// release/list, and `await db.lock(name, {ttl, wait})`, renewed while held.
import { test, before, after } from './support.js';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Larder, LockNotAcquired, LockNotHeldError, findBinary } from '../index.js';

const CLOCK = '2026-01-01T00:00:00Z';
const TEST_ARGS = ['--enable-test-methods', '--clock', CLOCK];
let db;
let dir;

before(async () => {
  db = await Larder.spawn({ memory: true, args: TEST_ARGS });
  dir = mkdtempSync(join(tmpdir(), 'larder-node-locks-'));
});
after(async () => {
  await db?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Polls `condition` every 10 ms; fails after 20 s (a guard against hanging, not a measurement). */
async function eventually(condition, what) {
  const deadline = Date.now() + 20_000;
  while (!condition()) {
    assert.ok(Date.now() < deadline, `never: ${what}`);
    await sleep(10);
  }
}

test('acquire, renew, release and list', async () => {
  assert.deepEqual(await db.lock.acquire('reports/daily', { ttl: 30 }), { acquired: true, token: 1, expiresAt: '2026-01-01T00:00:30.000Z' });
  assert.deepEqual(await db.lock.acquire('reports/daily', { ttl: 30 }), { acquired: false, holderExpiresAt: '2026-01-01T00:00:30.000Z', heldHere: true });
  assert.deepEqual(await db.lock.renew('reports/daily', 1, { ttl: 60 }), { token: 1, expiresAt: '2026-01-01T00:01:00.000Z' });
  assert.deepEqual(await db.lock.list({ prefix: 'reports/' }), {
    locks: [{ name: 'reports/daily', token: 1, expiresAt: '2026-01-01T00:01:00.000Z', heldHere: true }],
  });
  assert.deepEqual(await db.lock.release('reports/daily', 1), { released: true });
  assert.deepEqual(await db.lock.release('reports/daily', 1), { released: false });
  assert.deepEqual(await db.lock.list(), { locks: [] });
  assert.throws(() => db.lock.acquire('x', { ttl: 1, wiat: 5 }), /unknown option wiat \(did you mean wait\?\)/);
});

test('a token not held rejects with LockNotHeldError naming the live token', async () => {
  await db.lock.acquire('job', { ttl: 30 });
  const e = await db.lock.renew('job', 7, { ttl: 30 }).catch((x) => x);
  assert.ok(e instanceof LockNotHeldError);
  assert.deepEqual([e.code, e.lockName, e.token, e.retryable], [-31090, 'job', 1, false]);
  await db.lock.release('job', 1);
  const gone = await db.lock.renew('job', 1, { ttl: 30 }).catch((x) => x);
  assert.deepEqual([gone.lockName, gone.token], ['job', null]);
});

test('db.lock holds the lease until released, also when the work throws', async () => {
  const lease = await db.lock('held', { ttl: 30 });
  assert.deepEqual([lease.name, lease.token, lease.expiresAt, lease.lost], ['held', 1, '2026-01-01T00:00:30.000Z', false]);
  assert.deepEqual((await db.lock.list({ prefix: 'held' })).locks.map((l) => l.token), [1]);
  await assert.rejects(async () => {
    try {
      throw new Error('boom');
    } finally {
      await lease.release();
    }
  }, /boom/);
  assert.deepEqual(await db.lock.list({ prefix: 'held' }), { locks: [] });
  await lease.release();
  const again = await db.lock('held', { ttl: 30 });
  assert.equal(again.token, 2);
  await again.release();
});

test('db.lock not acquired names the holder\'s expiry', async () => {
  await db.lock.acquire('busy', { ttl: 30 });
  const e = await db.lock('busy', { ttl: 5, wait: 0.05 }).catch((x) => x);
  assert.ok(e instanceof LockNotAcquired);
  assert.deepEqual([e.lockName, e.holderExpiresAt, e.heldHere, e.code], ['busy', '2026-01-01T00:00:30.000Z', true, null]);
  assert.match(e.message, /"busy".*2026-01-01T00:00:30\.000Z/);
  await assert.rejects(db.lock('busy', { ttl: 1, renewEvery: 1 }), /renewEvery must be more than 0 and less than ttl/);
  await assert.rejects(db.lock('busy', { wait: 1 }), /ttl must be a number of seconds more than 0, not undefined/);
});

test('a lost lease shows, and release rejects with why', async () => {
  const lease = await db.lock('lost', { ttl: 0.9 });
  await db.call('debug.advanceClock', { seconds: 10 }); // the store's clock passes the expiry
  await eventually(() => lease.lost, 'the next renewal finds the lease expired');
  assert.ok(lease.error instanceof LockNotHeldError);
  await assert.rejects(lease.release(), LockNotHeldError);
});

test('background renewal keeps a short lease past its ttl', async () => {
  const store = join(dir, 'renewed');
  const a = await Larder.spawn({ store });
  const b = await Larder.spawn({ store });
  try {
    const lease = await a.lock('job', { ttl: 0.6 });
    const heldUntil = Date.now() + 1500; // 2.5 ttls: held only if renewed
    while (Date.now() < heldUntil) await a.cache.set('busy', Date.now()); // the renewals share the client with these calls
    assert.equal(lease.lost, false);
    assert.equal((await b.lock.acquire('job', { ttl: 5 })).acquired, false);
    await lease.release();
    assert.equal((await b.lock.acquire('job', { ttl: 5 })).token, 2);
  } finally {
    await a.close();
    await b.close();
  }
});

const WORKER = `
import { closeSync, openSync, unlinkSync, appendFileSync } from 'node:fs';
const [index, store, marker, log, rounds] = process.argv.slice(1); // -e: no script path
const { Larder } = await import(index);
const db = await Larder.spawn({ store });
for (let i = 0; i < Number(rounds); i++) {
  const lease = await db.lock('counter', { ttl: 10, wait: 60 });
  try {
    const fd = openSync(marker, 'wx'); // EEXIST: two inside at once
    appendFileSync(log, JSON.stringify([process.pid, lease.token]) + '\\n');
    closeSync(fd);
    unlinkSync(marker);
  } finally {
    await lease.release();
  }
}
await db.close();
`;

test('four processes take turns, and tokens grow in the order granted', async () => {
  const rounds = 15;
  const store = join(dir, 'shared');
  const marker = join(dir, 'inside');
  const log = join(dir, 'log');
  const index = new URL('../index.js', import.meta.url).href;
  const env = { ...process.env, LARDER_BIN: findBinary() };
  const runs = Array.from({ length: 4 }, () => new Promise((resolve) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', WORKER, index, store, marker, log, String(rounds)],
      { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => { stderr += chunk; });
    child.on('close', (code) => resolve({ code, stderr }));
  }));
  for (const { code, stderr } of await Promise.all(runs)) assert.equal(code, 0, stderr);
  const entries = readFileSync(log, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
  assert.equal(entries.length, 4 * rounds);
  assert.equal(new Set(entries.map(([pid]) => pid)).size, 4);
  assert.deepEqual(entries.map(([, token]) => token), Array.from({ length: 4 * rounds }, (_, i) => i + 1));
});
