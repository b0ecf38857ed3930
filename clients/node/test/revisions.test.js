// Revisions, conditional writes and counters (SPEC 6.13) through the
// client: each write's revision, ifRevision / ifAbsent on set, setMany,
// remove, touch and object.put, ConditionFailed's data, increment and
// decrement; and four processes on one store directory updating one key, by
// counter and by compare-and-set, losing nothing.
import { test, before, after } from './support.js';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConditionFailed, ErrorCode, InvalidParams, Larder, LarderError, NotAnInteger } from '../index.js';
import { CAS_WORKER, INCR_WORKER, fourProcesses } from './processes.js';

let db;
let dir;

before(async () => {
  db = await Larder.spawn({ memory: true });
  dir = mkdtempSync(join(tmpdir(), 'larder-node-revisions-'));
});
after(async () => {
  await db?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('every write gives a new revision, which a touch keeps and a remove does not reuse', async () => {
  const first = (await db.cache.set('k', 1)).revision;
  const second = (await db.cache.set('k', 2)).revision;
  assert.notEqual(second, first);
  assert.equal((await db.cache.get('k')).revision, second);
  assert.deepEqual(await db.cache.touch('k'), { found: true });
  assert.equal((await db.cache.get('k')).revision, second);
  assert.deepEqual(await db.cache.remove('k'), { removed: true });
  assert.deepEqual(await db.cache.get('k'), { found: false });
  const third = (await db.cache.set('k', 3)).revision;
  assert.ok(![first, second].includes(third));
});

test('conditional set, touch and remove, refused with the live revision', async () => {
  const created = (await db.cache.set('job', 'queued', { ifAbsent: true })).revision;
  let caught = await db.cache.set('job', 'mine', { ifAbsent: true }).catch((err) => err);
  assert.ok(caught instanceof ConditionFailed);
  assert.equal(caught.code, ErrorCode.conditionFailed);
  assert.deepEqual([caught.key, caught.revision, caught.index], ['job', created, undefined]);

  const running = (await db.cache.set('job', 'running', { ifRevision: created })).revision;
  caught = await db.cache.set('job', 'stale', { ifRevision: created }).catch((err) => err);
  assert.ok(caught instanceof ConditionFailed);
  assert.equal(caught.revision, running);
  assert.equal((await db.cache.get('job')).value, 'running');

  await assert.rejects(db.cache.set('job', 1, { ifRevision: running, ifAbsent: true }), InvalidParams);

  assert.deepEqual(await db.cache.touch('job', { ifRevision: running }), { found: true });
  await assert.rejects(db.cache.touch('job', { ifRevision: created }), ConditionFailed);
  await assert.rejects(db.cache.remove('job', { ifRevision: created }), ConditionFailed);
  assert.deepEqual(await db.cache.remove('job', { ifRevision: running }), { removed: true });
  caught = await db.cache.remove('job', { ifRevision: running }).catch((err) => err);
  assert.ok(caught instanceof ConditionFailed);
  assert.deepEqual([caught.key, caught.revision], ['job', null]);
});

test('setMany writes nothing when one condition fails, and names the entry', async () => {
  const held = (await db.cache.set('task', 'running')).revision;
  const caught = await db.cache.setMany([
    { key: 'a', value: 1, ifAbsent: true },
    { key: 'task', value: 'done', ifRevision: held + 1 },
  ]).catch((err) => err);
  assert.ok(caught instanceof ConditionFailed);
  assert.deepEqual([caught.key, caught.revision, caught.index], ['task', held, 1]);
  assert.deepEqual(await db.cache.get('a'), { found: false });

  const result = await db.cache.setMany([
    { key: 'a', value: 1, ifAbsent: true },
    { key: 'task', value: 'done', ifRevision: held },
  ]);
  assert.equal(result.stored, 2);
  assert.deepEqual([(await db.cache.get('a')).revision, (await db.cache.get('task')).revision], result.revisions);
});

test('object.put answers the entry revision and takes conditions', async () => {
  await db.schema.register('Note', '1', { n: 'integer' });
  const put = await db.object.put('note', { type: 'Note', value: { n: 1 }, ifAbsent: true });
  assert.equal(put.version, '1');
  assert.equal((await db.object.get('note')).revision, put.revision);
  const caught = await db.object.put('note', { type: 'Note', value: { n: 2 }, ifAbsent: true }).catch((err) => err);
  assert.ok(caught instanceof ConditionFailed);
  assert.equal(caught.revision, put.revision);
  const again = await db.object.put('note', { type: 'Note', value: { n: 2 }, ifRevision: put.revision });
  assert.notEqual(again.revision, put.revision);
});

test('a misspelt condition is refused before anything is sent', async () => {
  assert.throws(() => db.cache.set('k', 1, { ifRevison: 1 }), /ifRevision/);
  await assert.rejects(async () => db.cache.remove('k', { ifAbsent: true }), /ifRevision/);
});

test('ConditionFailed from its error object', () => {
  const err = LarderError.fromResponse({ code: -31080, message: 'condition failed', data: { key: 'k', revision: null, index: 2 } });
  assert.ok(err instanceof ConditionFailed);
  assert.deepEqual([err.key, err.revision, err.index], ['k', null, 2]);
});

test('counters start from initial and go both ways', async () => {
  const first = await db.cache.increment('visits');
  assert.equal(first.value, 1);
  const second = await db.cache.increment('visits', { by: 5 });
  assert.equal(second.value, 6);
  assert.notEqual(second.revision, first.revision);
  assert.equal((await db.cache.get('visits')).revision, second.revision);
  assert.equal((await db.cache.decrement('visits', { by: 10 })).value, -4);
  assert.equal((await db.cache.decrement('stock', { initial: 10 })).value, 9);
  assert.equal((await db.cache.increment('fresh', { by: -2, initial: -5 })).value, -7);
});

test('a value that is not an integer is refused with NotAnInteger, and kept', async () => {
  await db.cache.set('name', 'ada');
  await db.cache.set('ratio', 1.5);
  for (const key of ['name', 'ratio']) {
    const caught = await db.cache.increment(key).catch((err) => err);
    assert.ok(caught instanceof NotAnInteger);
    assert.equal(caught.code, ErrorCode.notAnInteger);
    assert.equal(caught.key, key);
  }
  assert.equal((await db.cache.get('name')).value, 'ada');
  await db.cache.set('big', Number.MAX_SAFE_INTEGER);
  await assert.rejects(db.cache.increment('big'), NotAnInteger); // the sum would leave what every JSON reader takes exactly
  assert.equal((await db.cache.get('big')).value, Number.MAX_SAFE_INTEGER);
  assert.throws(() => db.cache.increment('k', { step: 1 }), /by/);
});

test('four processes increment one key and lose no update', async () => {
  assert.equal(await fourProcesses(INCR_WORKER, join(dir, 'incr'), 250), 1000);
});

test('four processes compare-and-set one key and lose no update', async () => {
  assert.equal(await fourProcesses(CAS_WORKER, join(dir, 'cas'), 250), 1000);
});
