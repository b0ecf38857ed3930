// A misspelt name never succeeds silently: typed methods refuse options they
// do not know before sending anything, and the server's refusals of unknown
// members and methods arrive as InvalidParams / MethodNotFound with data.
import { test, before, after } from './support.js';
import assert from 'node:assert/strict';
import { Larder, InvalidParams, MethodNotFound } from '../index.js';
import { nearestName, checkOptions } from '../options.js';

let db;
before(async () => {
  db = await Larder.spawn({ memory: true, args: ['--enable-test-methods', '--clock', '2026-01-01T00:00:00Z'] });
});
after(async () => {
  await db?.close();
});

/** Asserts that `fn` throws or rejects with a TypeError whose message is `message` (or matches it). */
async function refused(fn, message) {
  await assert.rejects(async () => fn(), (e) => {
    assert.ok(e instanceof TypeError, `expected a TypeError, got ${e}`);
    if (message instanceof RegExp) assert.match(e.message, message);
    else assert.equal(e.message, message);
    return true;
  });
}

test('nearestName: case, _ and - aside, then about one edit in three', () => {
  const cacheSet = ['value', 'data', 'ttl', 'cache', 'group'];
  assert.equal(nearestName('tll', cacheSet), 'ttl');
  assert.equal(nearestName('TTL', cacheSet), 'ttl');
  assert.equal(nearestName('cahce', cacheSet), 'cache');
  assert.equal(nearestName('gruop', cacheSet), 'group');
  assert.equal(nearestName('valeu', cacheSet), 'value');
  assert.equal(nearestName('max_count', ['maxCount', 'maxBytes']), 'maxCount');
  assert.equal(nearestName('return-expired', ['returnsExpired']), 'returnsExpired');
  assert.equal(nearestName('maxCont', ['maxCount', 'maxBytes']), 'maxCount');
  assert.equal(nearestName('colour', cacheSet), undefined);
  assert.equal(nearestName('x', cacheSet), undefined);
  assert.equal(nearestName('tl', ['ttl']), 'ttl');
  assert.equal(nearestName('ab', ['xy']), undefined); // two edits in two characters is a guess
  assert.equal(nearestName('abcdefghijkl', ['abcdefghixyz']), 'abcdefghixyz'); // three edits in twelve
  assert.equal(nearestName('abcdefghijklmnop', ['abcdefghijklwxyz']), undefined); // at most three
  assert.equal(nearestName('cat', ['bat', 'cab']), 'bat'); // a tie goes to the first listed
});

test('checkOptions: undefined is none; other keys and non-objects are refused', () => {
  assert.deepEqual(checkOptions('m', undefined, ['a']), {});
  const given = { a: 1, b: undefined };
  assert.equal(checkOptions('m', given, ['a', 'b']), given);
  assert.throws(() => checkOptions('m', { a: 1, bb: 2 }, ['a', 'b']), { name: 'TypeError', message: 'm: unknown option bb (did you mean b?)' });
  assert.throws(() => checkOptions('m', { zzz: 1 }, ['a', 'b']), { message: 'm: unknown option zzz (known: a, b)' });
  assert.throws(() => checkOptions('m', { zzz: undefined }, ['a']), TypeError); // misspelt is refused even when undefined
  assert.throws(() => checkOptions('m', 'a', ['a']), { message: 'm: options must be an object such as {a}, not string' });
  assert.throws(() => checkOptions('m', null, ['a']), /not null/);
  assert.throws(() => checkOptions('m', [1], ['a']), /not an array/);
});

test('starting: spawn, the constructor and initialize refuse unknown options', async () => {
  await refused(() => Larder.spawn({ memroy: true }), 'Larder.spawn: unknown option memroy (did you mean memory?)');
  await refused(() => Larder.spawn({ memory: true, app_version: '1' }), 'Larder.spawn: unknown option app_version (did you mean appVersion?)');
  await refused(() => new Larder(null, { framng: 'lines' }), 'Larder: unknown option framng (did you mean framing?)');
  await refused(() => new Larder(null, { memory: true }), /^Larder: unknown option memory \(known: framing, stderr, onError, onMigrate\)$/);
  await refused(() => db.initialize({ appVersoin: '1' }), 'initialize: unknown option appVersoin (did you mean appVersion?)');
  await refused(() => db.close({ timout: 1 }), 'close: unknown option timout (did you mean timeout?)');
  assert.equal(db.exited, false);
});

test('spawn still hands its options to the constructor and initialize', async () => {
  const other = await Larder.spawn({ memory: true, appVersion: '9.9.9', events: true, framing: 'content-length', onError() {} });
  try {
    assert.equal(other.server.protocolVersion, '1.7');
    assert.deepEqual(await other.cache.set('k', 1), { stored: true, size: 1, revision: 1 });
  } finally {
    await other.close();
  }
});

test('every typed method family refuses an unknown option, naming the one meant', async () => {
  const cases = [
    [() => db.call('cache.get', { key: 'k' }, { signl: null }), 'call: unknown option signl (did you mean signal?)'],
    [() => db.namespace('cache').get({ key: 'k' }, { onprogress() {} }), 'call: unknown option onprogress (did you mean onProgress?)'],
    [() => db.cacheView('v', { gruop: 'g' }), 'cacheView: unknown option gruop (did you mean group?)'],

    [() => db.cache.open('c', { lifespna: 5 }), 'cache.open: unknown option lifespna (did you mean lifespan?)'],
    [() => db.cache.open('c', { returns_expired: true }), 'cache.open: unknown option returns_expired (did you mean returnsExpired?)'],
    [() => db.cache.set('k', 1, { tll: 5 }), 'cache.set: unknown option tll (did you mean ttl?)'],
    [() => db.cache.get('k', { cahce: 'x' }), 'cache.get: unknown option cahce (did you mean cache?)'],
    [() => db.cache.getMany(['k'], { gorup: 'g' }), 'cache.getMany: unknown option gorup (did you mean group?)'],
    [() => db.cache.setMany({ a: 1 }, { tl: 5 }), 'cache.setMany: unknown option tl (did you mean ttl?)'],
    [() => db.cache.has('k', { Cache: 'x' }), 'cache.has: unknown option Cache (did you mean cache?)'],
    [() => db.cache.remove('k', { cach: 'x' }), 'cache.remove: unknown option cach (did you mean cache?)'],
    [() => db.cache.touch('k', { grup: 'g' }), 'cache.touch: unknown option grup (did you mean group?)'],
    [() => db.cache.keys({ prefx: 'a' }), 'cache.keys: unknown option prefx (did you mean prefix?)'],
    [() => db.cache.iterKeys({ page_size: 10 }).next(), 'cache.iterKeys: unknown option page_size (did you mean pageSize?)'],
    [() => db.cache.clear({ teir: 'all' }), 'cache.clear: unknown option teir (did you mean tier?)'],
    [() => db.cache.purgeExpired({ gruop: 'g' }), 'cache.purgeExpired: unknown option gruop (did you mean group?)'],
    [() => db.cache.stats({ cahe: 'x' }), 'cache.stats: unknown option cahe (did you mean cache?)'],
    [() => db.cache.subscribe({ cahce: 'x' }), 'cache.subscribe: unknown option cahce (did you mean cache?)'],

    [() => db.schema.register('T', '1', { a: 'string' }, { migartions: [] }), 'schema.register: unknown option migartions (did you mean migrations?)'],
    [() => db.schema.get('T', { verison: '1' }), 'schema.get: unknown option verison (did you mean version?)'],

    [() => db.object.put('o', { type: 'T', value: {}, tll: 5 }), 'object.put: unknown option tll (did you mean ttl?)'],
    [() => db.object.get('o', { tpye: 'T' }), 'object.get: unknown option tpye (did you mean type?)'],
    [() => db.object.describe('o', { gruop: 'g' }), 'object.describe: unknown option gruop (did you mean group?)'],
    [() => db.object.equals('a', 'b', { cahce: 'x' }), 'object.equals: unknown option cahce (did you mean cache?)'],
    [() => db.object.hash('o', { cahce: 'x' }), 'object.hash: unknown option cahce (did you mean cache?)'],
    [() => db.object.copy('a', 'b', { toCahce: 'x' }), 'object.copy: unknown option toCahce (did you mean toCache?)'],
    [() => db.migrate.run({ dryrun: true }), 'migrate.run: unknown option dryrun (did you mean dryRun?)'],

    [() => db.entity.define('M', [], { casng: 'snake_case' }), 'entity.define: unknown option casng (did you mean casing?)'],
    [() => db.entity.define({ model: 'M', entities: [] }, { date_format: 'iso8601' }), 'entity.define: unknown option date_format (did you mean dateFormat?)'],
    [() => db.entity.apply({ onMising: 'null' }), 'entity.apply: unknown option onMising (did you mean onMissing?)'],
    [() => db.entity.upsert('E', [], { on_missing: 'null' }), 'entity.upsert: unknown option on_missing (did you mean onMissing?)'],
    [() => db.entity.get('E', 1, { inclde: ['x'] }), 'entity.get: unknown option inclde (did you mean include?)'],
    [() => db.entity.getMany('E', [1], { includes: ['x'] }), 'entity.getMany: unknown option includes (did you mean include?)'],
    [() => db.entity.query('E', { ordrBy: 'x' }), 'entity.query: unknown option ordrBy (did you mean orderBy?)'],
    [() => db.entity.iterQuery('E', { pagesize: 10 }).next(), 'entity.iterQuery: unknown option pagesize (did you mean pageSize?)'],
    [() => db.entity.count('E', { wehre: {} }), 'entity.count: unknown option wehre (did you mean where?)'],
  ];
  for (const [fn, message] of cases) await refused(fn, message);

  const view = db.cacheView('v');
  await refused(() => view.set('k', 1, { tll: 5 }), 'CacheView.set: unknown option tll (did you mean ttl?)');
  await refused(() => view.setMany({ k: 1 }, { tll: 5 }), 'CacheView.setMany: unknown option tll (did you mean ttl?)');
  await refused(() => view.keys({ prefx: 'a' }).next(), 'CacheView.keys: unknown option prefx (did you mean prefix?)');
  await refused(() => view.entries({ pagesize: 1 }).next(), 'CacheView.entries: unknown option pagesize (did you mean pageSize?)');
  await refused(() => view.clear({ teir: 'all' }), 'CacheView.clear: unknown option teir (did you mean tier?)');

  // Without a close name, the message lists what is known; options that are not objects are refused too.
  await refused(() => db.cache.set('k', 1, { colour: 'red' }), 'cache.set: unknown option colour (known: data, ttl, cache, group, ifRevision, ifAbsent)');
  await refused(() => db.cache.get('k', 'other-cache'), 'cache.get: options must be an object such as {cache}, not string');

  // Nothing of the refused calls reached the store.
  assert.deepEqual(await db.cache.list(), { caches: [] });
  assert.deepEqual(await db.schema.list(), { types: [] });
  assert.deepEqual(await db.entity.models(), { models: [] });
  assert.deepEqual(await db.cache.get('k'), { found: false });
  assert.equal(db.exited, false);
});

test('a refused set stores nothing; the corrected one stores with its ttl', async () => {
  assert.throws(() => db.cache.set('t', 1, { tll: 5, cache: 'ttl-check' }), /did you mean ttl\?/);
  assert.deepEqual(await db.cache.get('t', { cache: 'ttl-check' }), { found: false });
  await db.cache.set('t', 1, { ttl: 5, cache: 'ttl-check' });
  assert.equal((await db.cache.get('t', { cache: 'ttl-check' })).expiresAt, '2026-01-01T00:00:05.000Z');
  await db.cache.drop('ttl-check');
});

test('server: an unknown member via call is InvalidParams with path, expected and suggestion', async () => {
  const e = await db.call('cache.set', { key: 'k', value: 1, tll: 5 }).catch((x) => x);
  assert.ok(e instanceof InvalidParams);
  assert.equal(e.code, -32602);
  assert.equal(e.message, 'Invalid params: unknown member params.tll (did you mean ttl?)');
  assert.deepEqual(e.data, {
    path: 'params.tll', expected: ['cache', 'group', 'key', 'value', 'data', 'ttl', 'ifRevision', 'ifAbsent'], suggestion: 'ttl',
  });
  assert.deepEqual(await db.cache.get('k'), { found: false });

  const far = await db.call('cache.get', { key: 'k', colour: 'red' }).catch((x) => x);
  assert.ok(far instanceof InvalidParams);
  assert.equal(far.data.path, 'params.colour');
  assert.ok(!('suggestion' in far.data));
  assert.doesNotMatch(far.message, /did you mean/);
});

test('server: a misspelt limit in cache.open is refused by path and changes nothing', async () => {
  await db.cache.open('limits', { memory: { maxCount: 7 } });
  const e = await db.cache.open('limits', { memory: { maxCont: 5 }, lifespan: 60 }).catch((x) => x);
  assert.ok(e instanceof InvalidParams);
  assert.equal(e.message, 'Invalid params: unknown member params.memory.maxCont (did you mean maxCount?)');
  assert.deepEqual(e.data, { path: 'params.memory.maxCont', expected: ['maxCount', 'maxBytes'], suggestion: 'maxCount' });
  const { config } = await db.cache.open('limits');
  assert.equal(config.memory.maxCount, 7);
  assert.equal(config.lifespan, 0);
  await db.cache.drop('limits');
});

test('server: setMany entries are sent as given, so a misspelt member stores nothing', async () => {
  const e = await db.cache.setMany([{ key: 'a', value: 1 }, { key: 'b', value: 2, tll: 5 }], { cache: 'entries' }).catch((x) => x);
  assert.ok(e instanceof InvalidParams);
  assert.equal(e.data.path, 'params.entries[1].tll');
  assert.equal(e.data.suggestion, 'ttl');
  const typo = await db.cache.setMany([{ key: 'a', valeu: 1 }], { cache: 'entries' }).catch((x) => x);
  assert.ok(typo instanceof InvalidParams);
  assert.deepEqual([typo.data.path, typo.data.suggestion], ['params.entries[0].valeu', 'value']);
  const { entries } = await db.cache.getMany(['a', 'b'], { cache: 'entries' });
  assert.deepEqual(entries, { a: { found: false }, b: { found: false } });
  // The ttl option applies to every entry without its own.
  await db.cache.setMany([{ key: 'a', value: 1 }, { key: 'b', value: 2, ttl: 0 }], { cache: 'entries', ttl: 5 });
  const r = await db.cache.getMany(['a', 'b'], { cache: 'entries' });
  assert.equal(r.entries.a.expiresAt, '2026-01-01T00:00:05.000Z');
  assert.equal(r.entries.b.expiresAt, undefined);
  await db.cache.drop('entries');
});

test('server: an unknown method is MethodNotFound, with a suggestion when one is close', async () => {
  const e = await db.call('cache.gett', { key: 'k' }).catch((x) => x);
  assert.ok(e instanceof MethodNotFound);
  assert.equal(e.code, -32601);
  assert.equal(e.message, 'Method not found: cache.gett (did you mean cache.get?)');
  assert.deepEqual(e.data, { method: 'cache.gett', suggestion: 'cache.get' });

  const viaNamespace = await db.namespace('cache').purgeExpird({}).catch((x) => x);
  assert.ok(viaNamespace instanceof MethodNotFound);
  assert.equal(viaNamespace.data.suggestion, 'cache.purgeExpired');

  const far = await db.call('nothing.close', {}).catch((x) => x);
  assert.ok(far instanceof MethodNotFound);
  assert.equal(far.message, 'Method not found: nothing.close');
  assert.equal(far.data, undefined);
});

test('server: misspelt members of definitions and migration steps name the path', async () => {
  const def = await db.entity.define('M', [{ name: 'A', atributes: { id: 'string' } }]).catch((x) => x);
  assert.ok(def instanceof InvalidParams);
  assert.deepEqual([def.data.path, def.data.suggestion], ['params.entities[0].atributes', 'attributes']);
  const step = await db.schema.register('T', '1', { a: 'string' }, { migrations: [{ from: '0', stpes: [] }] }).catch((x) => x);
  assert.ok(step instanceof InvalidParams);
  assert.equal(step.data.suggestion, 'steps');
  assert.deepEqual(await db.entity.models(), { models: [] });
  assert.deepEqual(await db.schema.list(), { types: [] });
});
