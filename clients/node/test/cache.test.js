// Every cache.* method against the real binary.
import { test, before, after } from './support.js';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Larder, AppVersionSuperseded, CacheNotFound, InvalidParams } from '../index.js';

const CLOCK = '2026-01-01T00:00:00Z';
let db;

before(async () => {
  db = await Larder.spawn({ memory: true, args: ['--enable-test-methods', '--clock', CLOCK] });
});
after(async () => {
  await db?.close();
});

test('spawn initializes and reports the server', () => {
  assert.equal(typeof db.pid, 'number');
  assert.equal(db.server.serverInfo.name, 'larder');
  assert.equal(db.server.store.persistent, false);
  assert.ok(db.server.capabilities.methods.includes('cache.set'));
});

test('set and get a JSON value', async () => {
  const value = { n: 1, list: [1, 2.5, 'x'], nested: { ok: true }, nothing: null };
  assert.deepEqual(await db.cache.set('json', value), { stored: true, size: JSON.stringify(value).length, revision: 1 });
  const r = await db.cache.get('json');
  assert.equal(r.found, true);
  assert.deepEqual(r.value, value);
  assert.equal(r.expired, false);
  assert.equal(r.storedAt, '2026-01-01T00:00:00.000Z');
  assert.equal(r.expiresAt, undefined);
  assert.equal(r.tier, 'memory');
  assert.ok(!('data' in r));
});

test('null, false, 0 and "" are values', async () => {
  for (const [key, value] of [['null', null], ['false', false], ['zero', 0], ['empty', '']]) {
    await db.cache.set(key, value);
    const r = await db.cache.get(key);
    assert.equal(r.found, true, key);
    assert.equal(r.value, value, key);
  }
});

test('Buffers travel as base64 data and come back as Buffers', async () => {
  const bytes = Buffer.from([0, 1, 2, 250, 255, 10, 13]);
  const stored = await db.cache.set('bytes', bytes);
  assert.deepEqual(stored, { stored: true, size: bytes.length, revision: stored.revision });
  const r = await db.cache.get('bytes');
  assert.ok(Buffer.isBuffer(r.data));
  assert.deepEqual(r.data, bytes);
  assert.ok(!('value' in r));

  await db.cache.set('u8', undefined, { data: new Uint8Array([7, 8, 9]) });
  assert.deepEqual((await db.cache.get('u8')).data, Buffer.from([7, 8, 9]));
  await db.cache.set('b64', undefined, { data: Buffer.from('hello').toString('base64') });
  assert.equal((await db.cache.get('b64')).data.toString(), 'hello');
  await db.cache.set('empty-bytes', undefined, { data: Buffer.alloc(0) });
  assert.equal((await db.cache.get('empty-bytes')).data.length, 0);
});

test('set refuses value and data together, and neither', async () => {
  assert.throws(() => db.cache.set('k', 1, { data: Buffer.from('x') }), /cache\.set: give value or data, not both/);
  assert.throws(() => db.cache.set('k'), /cache\.set: give a value \(any JSON\) or data \(bytes\)/);
});

test('set(key, value, options): an object value is stored whole, even one with a ttl member', async () => {
  await db.cache.set('shaped', { value: 1, ttl: 5 }, { cache: 'order' });
  const hit = await db.cache.get('shaped', { cache: 'order' });
  assert.deepEqual(hit.value, { value: 1, ttl: 5 });
  assert.equal(hit.expiresAt, undefined);
  await db.cache.set('null', null, { cache: 'order' });
  assert.deepEqual((await db.cache.get('null', { cache: 'order' })).value, null);
});

test('a value JSON cannot hold throws a TypeError naming where, and nothing is stored', async () => {
  const refused = [
    [NaN, 'cache.set: value is NaN, which JSON cannot hold'],
    [Infinity, 'cache.set: value is Infinity, which JSON cannot hold'],
    [{ a: [1, -Infinity] }, 'cache.set: value.a[1] is -Infinity, which JSON cannot hold'],
    [() => 1, 'cache.set: value is a function, which JSON cannot hold'],
    [{ f() {} }, 'cache.set: value.f is a function, which JSON cannot hold'],
    [[1, undefined], 'cache.set: value[1] is undefined, which JSON cannot hold'],
    [{ n: 10n }, 'cache.set: value.n is a bigint, which JSON cannot hold'],
    [Symbol('s'), 'cache.set: value is a symbol, which JSON cannot hold'],
  ];
  for (const [value, message] of refused) {
    assert.throws(() => db.cache.set('bad', value, { cache: 'refused' }), (e) => e instanceof TypeError && e.message === message);
  }
  assert.throws(() => db.cache.setMany({ ok: 1, bad: NaN }, { cache: 'refused' }),
    { message: 'cache.setMany: entry "bad": value is NaN, which JSON cannot hold' });
  assert.throws(() => db.cacheView('refused').set('bad', { x: NaN }), /value\.x is NaN/);
  assert.equal((await db.cache.has('bad', { cache: 'refused' })).found, false);
  assert.equal((await db.cache.has('ok', { cache: 'refused' })).found, false);
  // A member that is undefined is left out, as JSON.stringify leaves it; a Date travels as its toJSON.
  await db.cache.set('fine', { gone: undefined, at: new Date(0) }, { cache: 'refused' });
  assert.deepEqual((await db.cache.get('fine', { cache: 'refused' })).value, { at: '1970-01-01T00:00:00.000Z' });
});

test('get of a missing key, and of a missing cache', async () => {
  assert.deepEqual(await db.cache.get('missing'), { found: false });
  assert.deepEqual(await db.cache.get('x', { cache: 'no-such-cache' }), { found: false });
});

test('groups and caches keep keys apart', async () => {
  await db.cache.set('k', 'default');
  await db.cache.set('k', 'grouped', { group: 'g1' });
  await db.cache.set('k', 'other', { cache: 'other' });
  assert.equal((await db.cache.get('k')).value, 'default');
  assert.equal((await db.cache.get('k', { group: 'g1' })).value, 'grouped');
  assert.equal((await db.cache.get('k', { cache: 'other' })).value, 'other');
  assert.deepEqual(await db.cache.get('k', { cache: 'other', group: 'g1' }), { found: false });
});

test('ttl sets expiresAt, and entries expire with the clock', async () => {
  await db.cache.open('ttl');
  await db.cache.set('short', 1, { ttl: 5, cache: 'ttl' });
  await db.cache.set('long', 2, { ttl: 3600, cache: 'ttl' });
  const before = await db.cache.get('short', { cache: 'ttl' });
  assert.equal(before.found, true);
  assert.equal(Date.parse(before.expiresAt) - Date.parse(before.storedAt), 5000);
  assert.deepEqual(await db.cache.has('short', { cache: 'ttl' }), { found: true, valid: true });

  await db.call('debug.advanceClock', { seconds: 10 });
  assert.deepEqual(await db.cache.get('short', { cache: 'ttl' }), { found: false });
  assert.deepEqual(await db.cache.has('short', { cache: 'ttl' }), { found: true, valid: false });
  assert.equal((await db.cache.get('long', { cache: 'ttl' })).found, true);

  assert.deepEqual(await db.cache.purgeExpired({ cache: 'ttl' }), { removed: 1 });
  assert.deepEqual(await db.cache.has('short', { cache: 'ttl' }), { found: false, valid: false });
  assert.deepEqual(await db.cache.purgeExpired({ cache: 'never-made' }), { removed: 0 });
});

test('open: settings, lifespan, returnsExpired and touch', async () => {
  const opened = await db.cache.open('life', { lifespan: 10, returnsExpired: true, persistent: false, memory: { maxCount: 50 } });
  assert.equal(opened.cache, 'life');
  assert.equal(opened.created, true);
  assert.equal(opened.config.lifespan, 10);
  assert.equal(opened.config.returnsExpired, true);
  assert.equal(opened.config.persistent, false);
  assert.equal(opened.config.memory.maxCount, 50);
  assert.equal((await db.cache.open('life')).created, false);

  await db.cache.set('a', 'A', { cache: 'life' });
  await db.cache.set('b', 'B', { cache: 'life' });
  await db.call('debug.advanceClock', { seconds: 20 });
  const stale = await db.cache.get('a', { cache: 'life' });
  assert.equal(stale.found, true);
  assert.equal(stale.expired, true);
  assert.equal(stale.value, 'A');

  assert.deepEqual(await db.cache.touch('a', { cache: 'life' }), { found: true, revived: true });
  assert.deepEqual(await db.cache.has('a', { cache: 'life' }), { found: true, valid: true });
  assert.deepEqual(await db.cache.has('b', { cache: 'life' }), { found: true, valid: false });
  assert.deepEqual(await db.cache.touch('zz', { cache: 'life' }), { found: false });
  assert.deepEqual(await db.cache.touch('zz', { cache: 'never-made' }), { found: false });
});

test('getMany answers every key, found or not', async () => {
  await db.cache.set('m1', 1, { cache: 'many' });
  await db.cache.set('m2', Buffer.from('two'), { cache: 'many' });
  const { entries } = await db.cache.getMany(['m1', 'm2', 'm3'], { cache: 'many' });
  assert.deepEqual(Object.keys(entries).sort(), ['m1', 'm2', 'm3']);
  assert.equal(entries.m1.value, 1);
  assert.deepEqual(entries.m2.data, Buffer.from('two'));
  assert.deepEqual(entries.m3, { found: false });
});

test('setMany takes an array (with per-entry group and ttl), an object or a Map', async () => {
  const many = await db.cache.setMany(
    [
      { key: 's1', value: { a: 1 } },
      { key: 's2', value: Buffer.from([1, 2]) },
      { key: 's3', value: 3, group: 'g', ttl: 60 },
    ],
    { cache: 'sm' },
  );
  assert.deepEqual(many, { stored: 3, size: 7 + 2 + 1, revisions: many.revisions });
  assert.equal((await db.cache.get('s3', { cache: 'sm', group: 'g' })).revision, many.revisions[2]);
  assert.deepEqual((await db.cache.get('s1', { cache: 'sm' })).value, { a: 1 });
  assert.deepEqual((await db.cache.get('s2', { cache: 'sm' })).data, Buffer.from([1, 2]));
  assert.equal((await db.cache.get('s3', { cache: 'sm' })).found, false);
  const s3 = await db.cache.get('s3', { cache: 'sm', group: 'g' });
  assert.equal(s3.value, 3);
  assert.ok(s3.expiresAt);

  assert.equal((await db.cache.setMany({ o1: 1, o2: 'two' }, { cache: 'sm' })).stored, 2);
  assert.equal((await db.cache.setMany(new Map([['p1', [1]], ['p2', null]]), { cache: 'sm', group: 'mg' })).stored, 2);
  assert.equal((await db.cache.get('o2', { cache: 'sm' })).value, 'two');
  assert.deepEqual((await db.cache.get('p1', { cache: 'sm', group: 'mg' })).value, [1]);
});

test('setMany is all or none', async () => {
  await assert.rejects(
    db.cache.setMany([{ key: 'ok', value: 1 }, { key: '', value: 2 }], { cache: 'atomic' }),
    InvalidParams,
  );
  assert.deepEqual(await db.cache.get('ok', { cache: 'atomic' }), { found: false });
});

test('has and remove', async () => {
  await db.cache.set('h', 1, { cache: 'hr' });
  assert.deepEqual(await db.cache.has('h', { cache: 'hr' }), { found: true, valid: true });
  assert.deepEqual(await db.cache.remove('h', { cache: 'hr' }), { removed: true });
  assert.deepEqual(await db.cache.remove('h', { cache: 'hr' }), { removed: false });
  assert.deepEqual(await db.cache.has('h', { cache: 'hr' }), { found: false, valid: false });
  assert.deepEqual(await db.cache.remove('h', { cache: 'never-made' }), { removed: false });
});

test('keys: prefix, limit, cursor paging, and iterKeys', async () => {
  const names = Array.from({ length: 25 }, (_, i) => `key${String(i).padStart(2, '0')}`);
  await db.cache.setMany(names.map((key) => ({ key, value: key })), { cache: 'keys' });
  await db.cache.set('other', 0, { cache: 'keys' });
  await db.cache.set('key99', 0, { cache: 'keys', group: 'elsewhere' });

  const all = await db.cache.keys({ cache: 'keys' });
  assert.deepEqual(all, { keys: [...names, 'other'] });
  const page1 = await db.cache.keys({ cache: 'keys', prefix: 'key', limit: 10 });
  assert.deepEqual(page1.keys, names.slice(0, 10));
  assert.equal(typeof page1.cursor, 'string');
  const page2 = await db.cache.keys({ cache: 'keys', prefix: 'key', limit: 10, cursor: page1.cursor });
  assert.deepEqual(page2.keys, names.slice(10, 20));

  const iterated = [];
  for await (const k of db.cache.iterKeys({ cache: 'keys', prefix: 'key', pageSize: 7 })) iterated.push(k);
  assert.deepEqual(iterated, names);
  assert.deepEqual(await db.cache.keys({ cache: 'keys', group: 'elsewhere' }), { keys: ['key99'] });
  assert.deepEqual(await db.cache.keys({ cache: 'never-made' }), { keys: [] });
  await assert.rejects(db.cache.keys({ cache: 'keys', limit: 0 }), InvalidParams);
});

test('clear: a group, a tier, everything', async () => {
  await db.cache.setMany([{ key: 'a', value: 1 }, { key: 'b', value: 2 }, { key: 'c', value: 3, group: 'g' }], { cache: 'cl' });
  assert.deepEqual(await db.cache.clear({ cache: 'cl', group: 'g' }), { removed: 1 });
  assert.deepEqual(await db.cache.keys({ cache: 'cl' }), { keys: ['a', 'b'] });
  await db.cache.clear({ cache: 'cl', tier: 'memory' });
  assert.equal((await db.cache.stats({ cache: 'cl' })).memory.count, 0);
  assert.deepEqual(await db.cache.clear({ cache: 'cl' }), { removed: 2 });
  assert.deepEqual(await db.cache.keys({ cache: 'cl' }), { keys: [] });
  await assert.rejects(db.cache.clear({ cache: 'cl', tier: 'attic' }), InvalidParams);
  await assert.rejects(db.cache.clear({ cache: 'never-made' }), CacheNotFound);
});

test('stats counts entries, hits and misses', async () => {
  await db.cache.set('x', 'xyz', { cache: 'st' });
  await db.cache.get('x', { cache: 'st' });
  await db.cache.get('nope', { cache: 'st' });
  const s = await db.cache.stats({ cache: 'st' });
  assert.equal(s.cache, 'st');
  assert.equal(s.memory.count, 1);
  assert.equal(s.memory.bytes, 5);
  assert.equal(s.memory.hits, 1);
  assert.ok(s.memory.misses + s.disk.misses >= 1);
  for (const tier of ['memory', 'disk']) {
    for (const field of ['count', 'bytes', 'hits', 'misses', 'evictions']) assert.equal(typeof s[tier][field], 'number');
  }
  await assert.rejects(db.cache.stats({ cache: 'never-made' }), CacheNotFound);
});

test('list and drop', async () => {
  await db.cache.set('d', 1, { cache: 'doomed' });
  const { caches } = await db.cache.list();
  const doomed = caches.find((c) => c.name === 'doomed');
  assert.deepEqual({ count: doomed.count, bytes: doomed.bytes }, { count: 1, bytes: 1 });
  assert.equal(typeof doomed.config, 'object');
  assert.deepEqual(await db.cache.drop('doomed'), { dropped: true });
  assert.ok(!(await db.cache.list()).caches.some((c) => c.name === 'doomed'));
  await assert.rejects(db.cache.drop('doomed'), CacheNotFound);
});

test('subscribe to one cache or all', async () => {
  assert.deepEqual(await db.cache.subscribe('one'), { subscribed: 'one' });
  assert.deepEqual(await db.cache.subscribe(), { subscribed: '*' });
});

test('cacheView: a Map-like view of a cache and group', async () => {
  const view = db.cacheView('view', { group: 'g' });
  assert.equal(await view.get('k'), undefined);
  assert.equal(await view.has('k'), false);
  assert.equal(await view.set('k', { v: 1 }), view);
  await view.set('bin', Buffer.from('raw'));
  await view.set('t', 1, { ttl: 5 });
  assert.deepEqual(await view.get('k'), { v: 1 });
  assert.deepEqual(await view.get('bin'), Buffer.from('raw'));
  assert.equal(await view.has('k'), true);
  assert.equal((await view.entry('t')).expiresAt !== undefined, true);
  assert.equal(await view.touch('k'), true);
  // The group keeps it apart from the cache's default group.
  assert.deepEqual(await db.cache.get('k', { cache: 'view' }), { found: false });

  await view.setMany({ m1: 1, m2: 2 });
  const got = await view.getMany(['m1', 'm2', 'm3']);
  assert.deepEqual([...got], [['m1', 1], ['m2', 2]]);
  const keys = [];
  for await (const k of view) keys.push(k);
  assert.deepEqual(keys, ['bin', 'k', 'm1', 'm2', 't']);

  assert.equal(await view.delete('k'), true);
  assert.equal(await view.delete('k'), false);
  assert.equal(await view.clear(), 4);
  assert.equal((await view.stats()).cache, 'view');
});

test('a persistent store keeps values across sessions', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'larder-node-'));
  try {
    const first = await Larder.spawn({ store: dir });
    assert.equal(first.server.store.persistent, true);
    await first.cache.set('kept', { saved: true }, { cache: 'disk' });
    await first.cache.set('bytes', Buffer.from([9, 9]), { cache: 'disk' });
    assert.deepEqual(await first.close(), { exitCode: 0, signal: null });

    const second = await Larder.spawn({ store: dir });
    const r = await second.cache.get('kept', { cache: 'disk' });
    assert.deepEqual(r.value, { saved: true });
    assert.equal(r.tier, 'disk');
    assert.deepEqual((await second.cache.get('bytes', { cache: 'disk' })).data, Buffer.from([9, 9]));
    await second.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** The rows `cache` has in the store's database, read with the sqlite3 command line tool (null when it is missing). */
function rows(dir, cache) {
  const r = spawnSync('sqlite3', [join(dir, 'larder.db'),
    `SELECT COUNT(*) FROM entries JOIN caches ON caches.id = entries.cache WHERE caches.name = '${cache}'`], { encoding: 'utf8' });
  return r.status === 0 ? Number(r.stdout.trim()) : null;
}

test('persistent flipped on an existing cache: the entries survive a restart, or leave no rows', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'larder-node-'));
  try {
    const first = await Larder.spawn({ store: dir });
    await first.cache.open('session', { persistent: false });
    await first.cache.set('token', 'abc', { cache: 'session' });
    await first.cache.set('blob', Buffer.from([0, 1]), { cache: 'session' });
    const opened = await first.cache.open('session', { persistent: true });
    assert.equal(opened.config.persistent, true);
    assert.equal(opened.created, false);
    await first.close();

    const second = await Larder.spawn({ store: dir });
    const token = await second.cache.get('token', { cache: 'session' });
    assert.equal(token.value, 'abc');
    assert.equal(token.tier, 'disk');
    assert.deepEqual((await second.cache.get('blob', { cache: 'session' })).data, Buffer.from([0, 1]));
    const cleared = [];
    second.onEvent('cache.cleared', (params) => cleared.push(params));
    await second.cache.subscribe('session');
    const back = await second.cache.open('session', { persistent: false, memory: { maxCount: 1 } });
    assert.equal(back.config.persistent, false);
    assert.deepEqual(cleared, [{ cache: 'session', tier: 'disk' }]);
    assert.deepEqual((await second.cache.keys({ cache: 'session' })).keys, ['blob'], 'the most recently used stays');
    const counted = rows(dir, 'session');
    if (counted !== null) assert.equal(counted, 0);
    await second.close();

    const third = await Larder.spawn({ store: dir });
    assert.equal((await third.cache.get('blob', { cache: 'session' })).found, false, 'memory-only from now on');
    await third.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a durable store stays persistent', async () => {
  await db.cache.open('outbox', { kind: 'store' });
  await db.cache.set('m', 1, { cache: 'outbox' });
  await assert.rejects(db.cache.open('outbox', { persistent: false }),
    (e) => e instanceof InvalidParams && e.code === -32602 && /always persistent/.test(e.message));
  assert.equal((await db.cache.open('outbox')).config.persistent, true);
  assert.equal((await db.cache.get('m', { cache: 'outbox' })).value, 1);
});

test('cacheView: default group, a default ttl, entries(), clear of a missing cache', async () => {
  const plain = db.cacheView('view2');
  await plain.set('a', 1);
  assert.equal((await db.cache.get('a', { cache: 'view2' })).value, 1);
  assert.equal((await plain.entry('a')).expiresAt, undefined);

  const short = db.cacheView('view2', { ttl: 30 });
  await short.set('b', Buffer.from('B'));
  await short.setMany({ c: 3 });
  const b = await short.entry('b');
  assert.equal(Date.parse(b.expiresAt) - Date.parse(b.storedAt), 30_000);
  assert.ok((await short.entry('c')).expiresAt);

  const pairs = [];
  for await (const pair of plain.entries()) pairs.push(pair);
  assert.deepEqual(pairs, [['a', 1], ['b', Buffer.from('B')], ['c', 3]]);
  assert.equal(await db.cacheView('never-made').clear(), 0);
});

test('initialize can be sent by hand, once', async () => {
  const late = await Larder.spawn({ memory: true, initialize: false });
  try {
    assert.equal(late.server, null);
    const r = await late.initialize({ appVersion: '9.9.9', events: true });
    assert.equal(r.serverInfo.name, 'larder');
    assert.equal(late.server, r);
    await assert.rejects(late.initialize(), /accepted once/);
    await late.shutdown();
    await assert.rejects(late.cache.list(), /shut down/);
  } finally {
    await late.close();
  }
});

test('a durable store keeps what expires and refuses what would remove it; an app version change wipes only caches', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'larder-node-versions-'));
  try {
    const v1 = await Larder.spawn({ store: dir, appVersion: '1.0' });
    try {
      assert.equal((await v1.cache.open('drafts', { kind: 'store' })).config.kind, 'store');
      await v1.cache.set('d', { title: 'kept' }, { cache: 'drafts' });
      await v1.cache.set('t', 1, { cache: 'drafts', ttl: 3600 });
      await assert.rejects(v1.cache.open('drafts', { purgeExpiredAfter: 60 }), /never purged/);
      await assert.rejects(v1.cache.purgeExpired({ cache: 'drafts' }), InvalidParams);
      await assert.rejects(v1.cache.open('drafts', { kind: 'cache' }), /cannot become/);
      assert.equal((await v1.cache.open('keep', { persistsAcrossVersions: true })).config.persistsAcrossVersions, true);
      assert.equal((await v1.cache.open('keep', { purgeExpiredAfter: 30 })).config.purgeExpiredAfter, 30);
      await v1.cache.set('k', 1, { cache: 'keep' });
      await v1.cache.set('gone', 1);
    } finally {
      await v1.close();
    }
    const v2 = await Larder.spawn({ store: dir, appVersion: '2.0' });
    try {
      assert.equal(v2.server.previousAppVersion, '1.0');
      assert.equal((await v2.cache.get('gone')).found, false);
      assert.equal((await v2.cache.get('k', { cache: 'keep' })).found, true);
      assert.deepEqual((await v2.cache.get('d', { cache: 'drafts' })).value, { title: 'kept' });
    } finally {
      await v2.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a durable store expires as a cache does, and a touch revives what expired', async () => {
  await db.cache.open('notes', { kind: 'store', lifespan: 5 });
  await db.cache.set('n', 1, { cache: 'notes' });
  await db.call('debug.advanceClock', { seconds: 6 });
  assert.equal((await db.cache.get('n', { cache: 'notes' })).found, false);
  assert.deepEqual(await db.cache.has('n', { cache: 'notes' }), { found: true, valid: false });
  assert.deepEqual(await db.cache.touch('n', { cache: 'notes' }), { found: true, revived: true });
  assert.equal((await db.cache.get('n', { cache: 'notes' })).value, 1);
});

test('a sidecar whose cache a newer version claimed reads it empty and may not write to it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'larder-node-two-versions-'));
  const v1 = await Larder.spawn({ store: dir, appVersion: '1.0' });
  const v2 = await Larder.spawn({ store: dir, appVersion: '2.0' });
  try {
    await v1.cache.set('k', '1.0');
    assert.equal((await v2.cache.get('k')).found, false);
    await v2.cache.set('k', '2.0');
    assert.equal((await v1.cache.get('k')).found, false);
    await assert.rejects(v1.cache.set('k', '1.0 late'), (e) => e instanceof AppVersionSuperseded
      && e.cache === 'default' && e.appVersion === '1.0' && e.cacheAppVersion === '2.0');
    assert.equal((await v2.cache.get('k')).value, '2.0');
  } finally {
    await v1.close();
    await v2.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('groups: counts, sub-groups by prefix, pages', async () => {
  await db.cache.set('index', 1, { cache: 'files', group: 'docs' });
  await db.cache.setMany([{ key: 'a', value: 1 }, { key: 'b', value: 2 }], { cache: 'files', group: 'docs.drafts' });
  await db.cache.set('c', 3, { cache: 'files', group: 'docs.final' });
  await db.cache.set('top', 0, { cache: 'files' });
  assert.deepEqual(await db.cache.groups({ cache: 'files', prefix: 'docs.' }), {
    groups: [{ group: 'docs.drafts', count: 2 }, { group: 'docs.final', count: 1 }],
  });
  const first = await db.cache.groups({ cache: 'files', limit: 2 });
  assert.deepEqual(first, { groups: [{ group: '', count: 1 }, { group: 'docs', count: 1 }], cursor: 'docs' });
  const all = [];
  for await (const g of db.cache.iterGroups({ cache: 'files', pageSize: 1 })) all.push(g.group);
  assert.deepEqual(all, ['', 'docs', 'docs.drafts', 'docs.final']);
  assert.deepEqual(await db.cache.groups({ cache: 'no such cache' }), { groups: [] });
  await assert.rejects(db.cache.groups({ cache: 'files', limit: 0 }), InvalidParams);
  assert.throws(() => db.cache.groups({ cache: 'files', group: 'docs' }), /group/);
});

test('store.clear: objects only, then everything but durable stores', async () => {
  const local = await Larder.spawn({ memory: true, events: true });
  try {
    const cleared = [];
    local.onEvent('cache.cleared', (p) => cleared.push(p));
    await local.schema.register('Note', '1', { text: 'string' });
    await local.cache.set('plain', 1);
    await local.object.put('note', { type: 'Note', value: { text: 'x' } });
    await local.cache.open('settings', { kind: 'store' });
    await local.cache.set('theme', 'dark', { cache: 'settings' });
    assert.deepEqual(await local.store.clear({ kind: 'objects' }), { removed: 1, caches: [{ cache: 'default', removed: 1 }] });
    assert.deepEqual(cleared, [{ cache: 'default', tier: 'all', kind: 'objects' }]);
    assert.equal((await local.cache.get('plain')).value, 1);
    assert.deepEqual(await local.store.clear(), { removed: 1, caches: [{ cache: 'default', removed: 1 }] });
    assert.equal((await local.cache.get('theme', { cache: 'settings' })).value, 'dark', 'a durable store is left alone');
    assert.deepEqual(await local.store.clear({ includeStores: true }), { removed: 1, caches: [{ cache: 'settings', removed: 1 }] });
    await assert.rejects(local.store.clear({ kind: 'everything' }), InvalidParams);
    assert.throws(() => local.store.clear({ kinds: 'objects' }), /kinds/);
  } finally {
    await local.close();
  }
});
