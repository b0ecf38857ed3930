// Transactions over several keys (`db.transaction()`, `cache.transaction`)
// through the client, against the real binary: each comparison and
// operation, the else branch, `commit({check: true})`, an increment that
// rolls the whole transaction back, a malformed element named by the server;
// and four processes on one store directory moving money between accounts,
// which neither creates nor loses any.
import { test, before, after } from './support.js';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConditionFailed, ErrorCode, InvalidParams, Larder, LarderError, NotAnInteger } from '../index.js';
import { ACCOUNTS, OPENING, bankTransfers } from './processes.js';

let db;
let dir;

before(async () => {
  db = await Larder.spawn({ memory: true });
  dir = mkdtempSync(join(tmpdir(), 'larder-node-transaction-'));
});
after(async () => {
  await db?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('every comparison holding applies then, in order', async () => {
  const alice = (await db.cache.set('alice', 100, { cache: 'accounts' })).revision;
  await db.cache.set('bob', 10, { cache: 'accounts' });
  await db.cache.set('pending', 'x', { cache: 'accounts' });
  const txn = db.transaction({ cache: 'accounts' })
    .ifRevision('alice', alice).ifAbsent('lock:x').ifPresent('bob').ifValue('bob', 10)
    .set('alice', 90).increment('bob', { by: 10 }).remove('pending').get('bob').remove('pending')
    .decrement('fresh', { by: 2 });
  txn.else.get('alice');
  const result = await txn.commit();

  assert.equal(result.succeeded, true);
  assert.equal('failed' in result, false);
  const [written, summed, removed, read, again, fresh] = result.results;
  assert.notEqual(written.revision, alice);
  assert.equal(summed.value, 20);
  assert.deepEqual([removed, again], [{ removed: true }, { removed: false }]);
  assert.deepEqual([read.found, read.value, read.revision], [true, 20, summed.revision]);
  assert.equal(fresh.value, -2);
  const now = await db.cache.get('alice', { cache: 'accounts' });
  assert.deepEqual([now.value, now.revision], [90, written.revision]);
  assert.deepEqual(await db.cache.get('pending', { cache: 'accounts' }), { found: false });
});

test('a comparison that does not hold applies else and names the first', async () => {
  const stale = (await db.cache.set('carol', 80)).revision;
  const now = (await db.cache.set('carol', 81)).revision;
  const txn = db.transaction().ifAbsent('nobody').ifRevision('carol', stale).ifPresent('nobody')
    .set('carol', 0).set('written', true);
  txn.else.get('carol').increment('misses');
  const result = await txn.commit();

  assert.equal(result.succeeded, false);
  assert.deepEqual(result.failed, { index: 1, key: 'carol', revision: now });
  const [entry, misses] = result.results;
  assert.deepEqual([entry.value, entry.revision, misses.value], [81, now, 1]);
  assert.equal((await db.cache.get('carol')).value, 81);
  assert.deepEqual(await db.cache.get('written'), { found: false });

  assert.deepEqual(await db.transaction().ifPresent('nobody').commit(),
    { succeeded: false, failed: { index: 0, key: 'nobody', revision: null }, results: [] });
});

test('each comparison', async () => {
  const revision = (await db.cache.set('k', { a: 'x', b: [1.5, 2] })).revision;
  await db.cache.set('bytes', new Uint8Array([0, 1]));
  const cases = [
    ['revision', (t) => t.ifRevision('k', revision), true],
    ['another revision', (t) => t.ifRevision('k', revision + 1), false],
    ['revision null of an entry', (t) => t.ifRevision('k', null), false],
    ['revision null of none', (t) => t.ifRevision('none', null), true],
    ['absent of an entry', (t) => t.ifAbsent('k'), false],
    ['absent', (t) => t.ifAbsent('none'), true],
    ['present', (t) => t.ifPresent('k'), true],
    ['present of none', (t) => t.ifPresent('none'), false],
    ['value, members in another order', (t) => t.ifValue('k', { b: [1.5, 2], a: 'x' }), true],
    ['another value', (t) => t.ifValue('k', { a: 'x' }), false],
    ['value of none', (t) => t.ifValue('none', null), false],
    ['value of bytes', (t) => t.ifValue('bytes', 'AAE='), false],
  ];
  for (const [name, compare, holds] of cases) {
    const result = await compare(db.transaction()).set('done', 1).commit();
    assert.equal(result.succeeded, holds, name);
    assert.equal('failed' in result, !holds, name);
  }
});

test('bytes go in and come back as Buffers', async () => {
  const result = await db.transaction().set('b', Buffer.from([0, 255])).set('c', undefined, { data: new Uint8Array([1]) })
    .get('b').get('c').commit();
  assert.deepEqual([result.results[2].data, result.results[3].data], [Buffer.from([0, 255]), Buffer.from([1])]);
  const raw = await db.cache.transaction({ then: [{ op: 'get', key: 'b' }] });
  assert.deepEqual(raw.results[0].data, Buffer.from([0, 255]));
  assert.throws(() => db.transaction().ifValue('b', Buffer.from([0, 255])), TypeError);
  assert.throws(() => db.transaction().set('b', 1, { data: Buffer.from([0]) }), TypeError);
  assert.throws(() => db.transaction().set('b', NaN), /NaN/);
});

test('a scoped transaction names its cache and group unless an element does', async () => {
  await db.transaction({ cache: 'shop', group: 'eu' }).set('apples', 5).set('pears', 1, { group: 'us' })
    .set('plums', 2, { cache: 'other' }).commit();
  assert.equal((await db.cache.get('apples', { cache: 'shop', group: 'eu' })).value, 5);
  assert.equal((await db.cache.get('pears', { cache: 'shop', group: 'us' })).value, 1);
  assert.equal((await db.cache.get('plums', { cache: 'other', group: 'eu' })).value, 2);
  assert.deepEqual(await db.cache.get('apples'), { found: false });
  assert.equal((await db.transaction({ cache: 'shop' }).ifValue('apples', 5, { group: 'eu' }).commit()).succeeded, true);
});

test('check: true rejects with ConditionFailed naming the comparison', async () => {
  const now = (await db.cache.set('checked', 1)).revision;
  const caught = await db.transaction().ifPresent('checked').ifRevision('checked', now + 1).set('checked', 2)
    .commit({ check: true }).catch((err) => err);
  assert.ok(caught instanceof ConditionFailed);
  assert.deepEqual([caught.index, caught.key, caught.revision], [1, 'checked', now]);
  assert.equal((await db.cache.get('checked')).value, 1);
  assert.equal((await db.transaction().ifRevision('checked', now).set('checked', 2).commit({ check: true })).succeeded, true);
});

test('an increment of a value that is not an integer rolls everything back', async () => {
  await db.cache.set('name', 'ada');
  await db.cache.set('n', 1);
  let caught = await db.transaction().set('wrote', 1).increment('n').increment('name').commit().catch((err) => err);
  assert.ok(caught instanceof NotAnInteger);
  assert.equal(caught.code, ErrorCode.notAnInteger);
  assert.deepEqual([caught.key, caught.index, caught.branch], ['name', 2, 'then']);
  assert.deepEqual(await db.cache.get('wrote'), { found: false });
  assert.equal((await db.cache.get('n')).value, 1);

  const otherwise = db.transaction().ifAbsent('n');
  otherwise.else.increment('n').decrement('name');
  caught = await otherwise.commit().catch((err) => err);
  assert.ok(caught instanceof NotAnInteger);
  assert.deepEqual([caught.index, caught.branch], [1, 'else']);
  assert.equal((await db.cache.get('n')).value, 1);
});

test('a malformed element, or a mix of memory-only and persistent caches, is InvalidParams', async () => {
  let caught = await db.cache.transaction({ then: [{ op: 'set', key: 'm', value: 1 }, { op: 'inc', key: 'n' }] })
    .catch((err) => err);
  assert.ok(caught instanceof InvalidParams);
  assert.match(caught.message, /then\[1\].*increment/);
  caught = await db.transaction().set('m', 1).ifRevision('m', '12').commit().catch((err) => err);
  assert.ok(caught instanceof InvalidParams);
  assert.match(caught.message, /compare\[0\]/);
  caught = await db.cache.transaction({ compare: [{ key: 'm', absent: true, present: true }] }).catch((err) => err);
  assert.ok(caught instanceof InvalidParams);
  assert.match(caught.message, /compare\[0\]/);
  await db.cache.open('scratch', { persistent: false });
  caught = await db.transaction().set('m', 1).set('m', 1, { cache: 'scratch' }).commit().catch((err) => err);
  assert.ok(caught instanceof InvalidParams);
  assert.match(caught.message, /scratch/);
  assert.deepEqual(await db.cache.get('m'), { found: false });
  assert.equal((await db.transaction({ cache: 'scratch' }).set('m', 1).get('m').commit()).results[1].value, 1);
});

test('a misspelt option is refused before anything is sent', async () => {
  assert.throws(() => db.transaction({ cahce: 'x' }), /did you mean cache\?/);
  assert.throws(() => db.transaction().increment('n', { bye: 2 }), /did you mean by\?/);
  assert.throws(() => db.transaction().ifAbsent('n', { gruop: 'g' }), /did you mean group\?/);
  await assert.rejects(db.transaction().commit({ chek: true }), /did you mean check\?/);
  await assert.rejects(db.cache.transaction({ otherwise: [] }), /unknown member otherwise/);
});

test('a transaction of reads and comparisons alone writes nothing', async () => {
  await db.cache.set('ra', 1);
  await db.cache.set('rb', 2);
  const result = await db.transaction().ifPresent('ra').get('ra').get('rb').get('rc').commit();
  assert.deepEqual(result.results.map((r) => r.value), [1, 2, undefined]);
  assert.deepEqual(result.results[2], { found: false });
});

test('NotAnInteger carries its place in the transaction', () => {
  const err = LarderError.fromResponse({ code: -31081, message: 'm', data: { key: 'k', index: 2, branch: 'else' } });
  assert.ok(err instanceof NotAnInteger);
  assert.deepEqual([err.key, err.index, err.branch], ['k', 2, 'else']);
  const plain = LarderError.fromResponse({ code: -31081, message: 'm', data: { key: 'k' } });
  assert.deepEqual([plain.index, plain.branch], [undefined, undefined]);
});

test('four processes move money between accounts and neither make nor lose any', async (t) => {
  const { moved, retried, counted, money } = await bankTransfers(join(dir, 'bank'), 100);
  assert.equal(money.reduce((a, b) => a + b, 0), OPENING * ACCOUNTS.length, String(money));
  assert.ok(Math.min(...money) >= 0, String(money));
  assert.ok(moved > 0);
  assert.equal(counted, moved);
  t.diagnostic(`${moved} transfers, ${retried} retried after a comparison did not hold; balances ${money}`);
});
