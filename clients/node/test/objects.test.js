// schema.*, object.*, migrate.run and migrate.object callbacks against the real binary.
import { test } from './support.js';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import {
  Larder, DROP, LarderError, InvalidParams, RequestFailed, SchemaConflict, SchemaNotFound, InvalidObject,
  NotAnObject, MigrationMissing, MigrationFailed, ErrorCode,
} from '../index.js';

const ARGS = ['--enable-test-methods', '--clock', '2026-01-01T00:00:00Z'];

/** Runs `fn(db)` against a fresh in-memory sidecar. */
async function withDb(options, fn) {
  const db = await Larder.spawn({ memory: true, args: ARGS, ...options });
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

const FOO_1_0_0 = {
  string: 'I am a foo!', date: '2017-02-06T16:03:40Z', integer: 1, array: ['a', 'b'],
  barObject: { string: 'bar string', date: '2017-01-01T00:00:00Z' },
};
const FOO_1_0_2 = { changeNameString: 'I am a foo!', date: 1486397020, addString: 'bar string' };

/** HMCache's README scenario: FooObject 1.0.0 → 1.0.1 → 1.0.2, one object put at 1.0.0. */
async function registerHMCache(db) {
  assert.deepEqual(await db.schema.register('Bar', '1.0.0', { string: 'string', date: 'date' }), {
    type: 'Bar', version: '1.0.0', created: true,
  });
  await db.schema.register('FooObject', '1.0.0', {
    string: 'string', date: 'date', integer: 'integer', array: { array: 'string' }, barObject: { ref: 'Bar' },
  });
  assert.deepEqual(await db.object.put('foo', { type: 'FooObject', value: FOO_1_0_0 }), {
    stored: true, type: 'FooObject', version: '1.0.0', revision: 1,
  });
  await db.schema.register(
    'FooObject', '1.0.1',
    { changeNameString: 'string', date: 'number', array: { array: 'string' }, addString: 'string' },
    {
      migrations: [{
        from: '1.0.0',
        steps: [
          { op: 'rename', from: 'string', to: 'changeNameString' },
          { op: 'convert', field: 'date', to: 'epochSeconds' },
          { op: 'remove', field: 'integer' },
          { op: 'move', from: 'barObject.string', to: 'addString' },
          { op: 'remove', field: 'barObject' },
        ],
      }],
    },
  );
  await db.schema.register('FooObject', '1.0.2', { changeNameString: 'string', date: 'number', addString: 'string' }, {
    migrations: [{ from: ['1.0.1'], steps: [{ op: 'remove', field: 'array' }] }],
  });
}

/** A migrate.object handler whose behaviour each object chooses by its `mode`. */
function modeHandler() {
  const handler = (params) => {
    handler.calls.push(params);
    const { value } = params;
    if (value.mode === 'drop') return Larder.DROP;
    if (handler.failModes.has(value.mode)) {
      if (value.mode === 'crash') throw new TypeError('the handler crashed');
      throw new RequestFailed('cannot migrate this one', { key: params.key });
    }
    return { ...value, n: value.n * 10 };
  };
  handler.calls = [];
  handler.failModes = new Set(['fail', 'crash']);
  return handler;
}

/** Note 1 {n, mode}; objects under `keys` ([key, mode] pairs); Note 2 whose migration asks the client. */
async function noteWithCallback(db, keys = []) {
  await db.schema.register('Note', '1', { n: 'integer', mode: 'string' });
  for (const [key, mode] of keys) await db.object.put(key, { type: 'Note', value: { n: 1, mode } });
  await db.schema.register('Note', '2', { n: 'integer', mode: 'string' }, {
    migrations: [{ from: '1', steps: [{ op: 'callback' }] }],
  });
}

// MARK: - The HMCache scenario

test('HMCache: an object put at 1.0.0 reads at 1.0.2, migrated and written back', () => withDb({}, async (db) => {
  await registerHMCache(db);
  assert.deepEqual(await db.object.get('foo'), {
    found: true, type: 'FooObject', version: '1.0.2', value: FOO_1_0_2, migratedFrom: '1.0.0', revision: 2,
  });
  assert.deepEqual(await db.object.get('foo'), {
    found: true, type: 'FooObject', version: '1.0.2', value: FOO_1_0_2, revision: 2,
  });
  assert.deepEqual((await db.object.get('foo', { type: 'FooObject' })).value, FOO_1_0_2);
  assert.deepEqual(await db.object.describe('foo'), { description: { '*FooObject': FOO_1_0_2 } });
  const hashed = await db.object.hash('foo');
  assert.equal(hashed.algorithm, 'fnv1a64-canonical-json');
  assert.match(hashed.hash, /^[0-9a-f]{16}$/);
  const reordered = Object.fromEntries(Object.entries(FOO_1_0_2).reverse());
  assert.deepEqual(await db.object.hash({ type: 'FooObject', value: reordered }), hashed);
  assert.deepEqual(await db.object.equals('foo', { type: 'FooObject', value: FOO_1_0_2 }), { equal: true });
  assert.deepEqual(await db.schema.list(), {
    types: [
      { type: 'Bar', versions: ['1.0.0'], newest: '1.0.0' },
      { type: 'FooObject', versions: ['1.0.0', '1.0.1', '1.0.2'], newest: '1.0.2' },
    ],
  });
  const progress = [];
  const counts = await db.migrate.run({ onProgress: (v) => progress.push(v) });
  assert.deepEqual(counts, { examined: 1, migrated: 0, upToDate: 1, failed: 0, dropped: 0, failures: [] });
  assert.equal(progress[0].kind, 'begin');
  assert.equal(progress.at(-1).kind, 'end');
  const e = await db.schema.register('FooObject', '1.0.2', { x: 'string' }).catch((x) => x);
  assert.ok(e instanceof SchemaConflict);
  assert.equal(e.code, -31020);
  assert.deepEqual(e.data, { type: 'FooObject', version: '1.0.2' });
}));

test('HMCache: cache.get shows the stored version until a read migrates it', () => withDb({}, async (db) => {
  await registerHMCache(db);
  const raw = await db.cache.get('foo');
  assert.equal(raw.version, '1.0.0');
  assert.equal(raw.value.integer, 1);
  await db.object.put('new', { type: 'FooObject', value: { changeNameString: 'n', date: 1.5, addString: 'x' } });
  assert.equal((await db.object.get('new')).migratedFrom, undefined);
}));

// MARK: - Schemas

test('schema.register, get, list, extend and remove', () => withDb({}, async (db) => {
  assert.equal((await db.schema.register('Animal', '1', { name: 'string', born: 'date?' })).created, true);
  const dog = { breed: 'string', good: { type: 'bool', default: true }, owner: { optional: { ref: 'Person' } } };
  const options = { parent: 'Animal', extensions: { Show: { prize: 'string' } } };
  assert.deepEqual(await db.schema.register('Dog', '2.1', dog, options), { type: 'Dog', version: '2.1', created: true });
  assert.equal((await db.schema.register('Dog', '2.1', dog, options)).created, false);
  assert.deepEqual(await db.schema.get('Dog'), {
    schema: { type: 'Dog', version: '2.1', fields: dog, parent: 'Animal', extensions: { Show: { prize: 'string' } } },
    versions: ['2.1'],
  });
  await db.schema.register('Dog', '3', { ...dog, chip: 'string?' }, { parent: 'Animal' });
  assert.deepEqual((await db.schema.get('Dog')).versions, ['2.1', '3']);
  assert.equal((await db.schema.get('Dog')).schema.version, '3');
  assert.deepEqual((await db.schema.get('Dog', { version: '2.1' })).schema.extensions, { Show: { prize: 'string' } });
  const extended = await db.schema.extend('Dog', 'Tricks', { trick: 'string' });
  assert.equal(extended.schema.version, '3');
  assert.deepEqual(extended.schema.extensions, { Tricks: { trick: 'string' } });
  const listed = Object.fromEntries((await db.schema.list()).types.map((t) => [t.type, t]));
  assert.deepEqual(listed.Dog, { type: 'Dog', versions: ['2.1', '3'], newest: '3', parent: 'Animal' });
  assert.deepEqual(await db.schema.remove('Dog'), { removed: 2 });
  const e = await db.schema.get('Dog').catch((x) => x);
  assert.ok(e instanceof SchemaNotFound);
  assert.equal(e.code, -31021);
  assert.deepEqual(e.data, { type: 'Dog' });
  await assert.rejects(db.schema.remove('Dog'), SchemaNotFound);
  await assert.rejects(db.schema.extend('Dog', 'Tricks', { x: 'string' }), SchemaNotFound);
}));

test('schema.extend without a category name', () => withDb({}, async (db) => {
  // HMCache's registerPropertyName: without a category name.
  await db.schema.register('Person', '1', { name: 'string' });
  await db.schema.extend('Person', 'Club', { club: 'string' });
  assert.deepEqual((await db.schema.extend('Person', null, { nick: 'string' })).schema.extensions, { Club: { club: 'string' }, '': { nick: 'string' } });
  assert.deepEqual((await db.schema.extend('Person', '', { mood: 'string' })).schema.extensions[''], { nick: 'string', mood: 'string' });
  assert.deepEqual(await db.object.describe({ type: 'Person', value: { name: 'Bo', nick: 'B', club: 'C' } }), {
    description: { '*Person': { name: 'Bo', '(Club)club': 'C', nick: 'B', mood: null } },
  });
}));

test('a subtype where its parent is declared, and null as unset', () => withDb({}, async (db) => {
  // HMCache's dictionary of a FooObject and a SubFooObject.
  await db.schema.register('Foo', '1', { string: 'string', date: 'date?' });
  await db.schema.register('SubFoo', '1', { number: 'integer' }, { parent: 'Foo' });
  await db.schema.register('Shelf', '1', { byKey: { map: { ref: 'Foo' } } });
  const value = { byKey: { 1: { string: 'a' }, 2: { $type: 'SubFoo', string: 'b', number: 123 } } };
  await db.object.put('s', { type: 'Shelf', value });
  assert.deepEqual((await db.object.get('s')).value, value);
  assert.deepEqual((await db.object.describe('s')).description['*Shelf'].byKey['2'], {
    '*SubFoo': { number: 123, '**Foo': { string: 'b', date: null } },
  });
  const e = await db.object.put('t', { type: 'Shelf', value: { byKey: { 1: { $type: 'SubFo', string: 'a', number: 1 } } } }).catch((x) => x);
  assert.ok(e instanceof InvalidObject);
  assert.deepEqual(e.data, { path: 'value.byKey.1.$type', reason: 'no type "SubFo" is registered (did you mean SubFoo?)' });
  // A nil property and one never set are the same state.
  const nil = { type: 'Foo', value: { string: 'a', date: null } };
  const unset = { type: 'Foo', value: { string: 'a' } };
  assert.deepEqual(await db.object.equals(nil, unset), { equal: true });
  assert.deepEqual(await db.object.hash(nil), await db.object.hash(unset));
}));

test('schema errors', () => withDb({}, async (db) => {
  await db.schema.register('Person', '1', { name: 'string' });
  await assert.rejects(db.schema.register('Person', '1.0', { name: 'string', age: 'integer' }), SchemaConflict);
  await assert.rejects(db.schema.register('Person', 'x.1', {}), (e) => e instanceof InvalidParams && /not a version/.test(e.message));
  await assert.rejects(db.schema.register('Person', '2', { name: 'strnig' }), (e) => e instanceof InvalidParams && /unknown type/.test(e.message));
  await assert.rejects(
    db.schema.register('Person', '2', { name: 'string' }, { migrations: [{ from: '3', steps: [] }] }),
    (e) => e instanceof InvalidParams && /older version/.test(e.message),
  );
  await assert.rejects(db.schema.extend('Person', 'More', { name: 'string' }), (e) => e instanceof InvalidParams && /already has a field/.test(e.message));
  await assert.rejects(db.schema.get('Person', { version: '7' }), (e) => e instanceof RequestFailed && /no version 7/.test(e.message));
}));

// MARK: - Objects

test('InvalidObject names the path', () => withDb({}, async (db) => {
  await registerHMCache(db);
  await db.schema.register('Holder', '1', { foo: { ref: 'FooObject' }, list: { array: 'integer' } });
  let e = await db.object.put('h', { type: 'Holder', value: { foo: { ...FOO_1_0_2, date: 'soon' }, list: [] } }).catch((x) => x);
  assert.ok(e instanceof InvalidObject);
  assert.equal(e.code, -31022);
  assert.deepEqual(e.data, { path: 'value.foo.date', reason: 'expected number, got string' });
  e = await db.object.put('h', { type: 'Holder', value: { foo: FOO_1_0_2, list: [1, 'two'] } }).catch((x) => x);
  assert.equal(e.data.path, 'value.list[1]');
  e = await db.object.put('h', { type: 'Holder', value: { list: [] } }).catch((x) => x);
  assert.match(e.message, /missing required field/);
  assert.equal(e.data.path, 'value.foo');
  await assert.rejects(db.object.put('h', { type: 'Holder', value: { foo: FOO_1_0_2, list: [], extra: 1 } }), InvalidObject);
  await assert.rejects(db.object.put('h', { type: 'Cat', value: {} }), SchemaNotFound);
  await assert.rejects(db.object.put('h', { type: 'Holder' }), InvalidParams);
  assert.deepEqual(await db.object.get('h'), { found: false });
}));

test('object.get: cache, group, ttl, type check, NotAnObject', () => withDb({}, async (db) => {
  await db.schema.register('Note', '1', { title: 'string', tags: { type: { array: 'string' }, default: [] } });
  assert.deepEqual(await db.object.put('n', { type: 'Note', value: { title: 't' }, ttl: 10, cache: 'notes', group: 'g' }), {
    stored: true, type: 'Note', version: '1', revision: 1,
  });
  assert.deepEqual(await db.object.get('n'), { found: false });
  assert.deepEqual(await db.object.get('n', { cache: 'notes' }), { found: false });
  assert.deepEqual((await db.object.get('n', { cache: 'notes', group: 'g' })).value, { title: 't', tags: [] });
  assert.equal((await db.cache.get('n', { cache: 'notes', group: 'g' })).expiresAt, '2026-01-01T00:00:10.000Z');
  const e = await db.object.get('n', { type: 'Memo', cache: 'notes', group: 'g' }).catch((x) => x);
  assert.ok(e instanceof RequestFailed);
  assert.deepEqual(e.data, { key: 'n', type: 'Note' });
  await db.cache.set('plain', 1);
  const n = await db.object.get('plain').catch((x) => x);
  assert.ok(n instanceof NotAnObject);
  assert.equal(n.code, -31023);
  assert.deepEqual(n.data, { key: 'plain' });
}));

test('object.describe, equals, hash and copy', () => withDb({}, async (db) => {
  await db.schema.register('Animal', '1', { name: 'string' });
  await db.schema.register('Person', '1', { name: 'string' });
  await db.schema.register('Dog', '1', { breed: 'string', owner: { ref: 'Person' } }, {
    parent: 'Animal', extensions: { Tricks: { trick: 'string' } },
  });
  const rex = { name: 'Rex', breed: 'collie', owner: { name: 'Ada' }, trick: 'roll over' };
  await db.object.put('rex', { type: 'Dog', value: rex, group: 'pets' });
  const description = {
    description: {
      '*Dog': { breed: 'collie', owner: { '*Person': { name: 'Ada' } }, '(Tricks)trick': 'roll over', '**Animal': { name: 'Rex' } },
    },
  };
  assert.deepEqual(await db.object.describe('rex', { group: 'pets' }), description);
  assert.deepEqual(await db.object.describe({ type: 'Dog', value: rex }), description);

  assert.deepEqual(await db.object.copy('rex', 'rex2', { group: 'pets', toCache: 'kennel', toGroup: 'copies' }), {
    copied: true, type: 'Dog', version: '1',
  });
  assert.deepEqual(
    (await db.object.get('rex2', { cache: 'kennel', group: 'copies' })).value,
    (await db.object.get('rex', { group: 'pets' })).value,
  );
  assert.equal((await db.object.copy('rex', 'rex3', { group: 'pets' })).copied, true);
  await assert.rejects(db.object.copy('nobody', 'x'), (e) => e instanceof RequestFailed && /no object under key/.test(e.message));

  assert.deepEqual(await db.object.equals('rex', 'rex3', { group: 'pets' }), { equal: true });
  assert.deepEqual(await db.object.equals('rex', { key: 'rex2', cache: 'kennel', group: 'copies' }, { group: 'pets' }), { equal: true });
  assert.deepEqual(await db.object.equals({ type: 'Dog', value: rex }, { type: 'Dog', value: { ...rex, breed: 'beagle' } }), { equal: false });
  assert.deepEqual(
    await db.object.equals({ type: 'Animal', value: { name: 'Ada' } }, { type: 'Person', value: { name: 'Ada' } }),
    { equal: false },
  );
  await assert.rejects(db.object.equals('rex', 'nobody'), RequestFailed);

  const { hash } = await db.object.hash('rex', { group: 'pets' });
  assert.equal((await db.object.hash({ key: 'rex2', cache: 'kennel', group: 'copies' })).hash, hash);
  assert.notEqual((await db.object.hash({ type: 'Dog', value: { ...rex, breed: 'beagle' } })).hash, hash);
  await assert.rejects(db.object.hash({ type: 'Dog', value: { name: 1 } }), InvalidObject);
}));

test('object operands are checked before sending', () => withDb({}, async (db) => {
  assert.throws(() => db.object.describe(), TypeError);
  assert.throws(() => db.object.hash({ type: 'Dog' }), TypeError);
  assert.throws(() => db.object.equals('a', 5), TypeError);
  assert.throws(() => db.object.equals(null, 'b'), TypeError);
}));

// MARK: - Migrations that ask the client

test('onMigrate in spawn declares migrationCallbacks; a callback answered with a value', async () => {
  const handler = modeHandler();
  await withDb({ onMigrate: handler }, async (db) => {
    assert.equal(db.migrationCallbacks, true);
    await noteWithCallback(db, [['a', 'ok']]);
    assert.deepEqual(await db.object.get('a'), {
      found: true, type: 'Note', version: '2', value: { n: 10, mode: 'ok' }, migratedFrom: '1', revision: 2,
    });
    assert.deepEqual(handler.calls, [{
      type: 'Note', key: 'a', cache: 'default', group: '', fromVersion: '1', toVersion: '2', value: { n: 1, mode: 'ok' },
    }]);
    assert.deepEqual((await db.object.get('a')).value, { n: 10, mode: 'ok' });
    assert.equal(handler.calls.length, 1, 'written back: not asked again');
  });
});

test('the callback names the cache and group; an async handler', () => withDb({ migrationCallbacks: true }, async (db) => {
  const seen = [];
  db.onMigrate(async (params) => {
    seen.push(params);
    await new Promise((r) => setTimeout(r, 10));
    return { ...params.value, n: 20 };
  });
  await db.schema.register('Note', '1', { n: 'integer', mode: 'string' });
  await db.object.put('a', { type: 'Note', value: { n: 2, mode: 'ok' }, cache: 'c', group: 'g' });
  await db.schema.register('Note', '2', { n: 'integer', mode: 'string' }, { migrations: [{ from: '1', steps: [{ op: 'callback' }] }] });
  assert.deepEqual(await db.object.hash('a', { cache: 'c', group: 'g' }), await db.object.hash({ type: 'Note', value: { n: 20, mode: 'ok' } }));
  assert.deepEqual([seen[0].cache, seen[0].group], ['c', 'g']);
}));

test('a callback answered with DROP deletes the object', () => withDb({ onMigrate: modeHandler() }, async (db) => {
  assert.equal(Larder.DROP, DROP);
  await noteWithCallback(db, [['b', 'drop']]);
  assert.deepEqual(await db.object.get('b'), { found: false, dropped: true, type: 'Note', migratedFrom: '1' });
  assert.deepEqual(await db.object.get('b'), { found: false });
  assert.deepEqual(await db.cache.get('b'), { found: false });
}));

for (const [mode, reason] of [['fail', 'cannot migrate this one'], ['crash', 'the handler crashed']]) {
  test(`a handler that throws (${mode}): MigrationFailed, the object untouched, a later read asks again`, async () => {
    const handler = modeHandler();
    await withDb({ onMigrate: handler }, async (db) => {
      await noteWithCallback(db, [['c', mode]]);
      const e = await db.object.get('c').catch((x) => x);
      assert.ok(e instanceof MigrationFailed, String(e));
      assert.equal(e.code, -31031);
      assert.equal(e.data.key, 'c');
      assert.equal(e.data.type, 'Note');
      assert.deepEqual([e.data.fromVersion, e.data.toVersion], ['1', '2']);
      assert.ok(e.data.reason.includes(reason), e.data.reason);
      const raw = await db.cache.get('c');
      assert.equal(raw.version, '1');
      assert.deepEqual(raw.value, { n: 1, mode });
      handler.failModes.clear();
      assert.deepEqual((await db.object.get('c')).value, { n: 10, mode });
      assert.equal(handler.calls.length, 2);
    });
  });
}

test('a handler answering something that is not an object fails the migration', () => withDb({ onMigrate: () => 'nope' }, async (db) => {
  await noteWithCallback(db, [['a', 'ok']]);
  await assert.rejects(db.object.get('a'), (e) => e instanceof MigrationFailed && /not an object/.test(e.message));
  db.onMigrate(() => {}); // undefined is answered as {value: null}
  await assert.rejects(db.object.get('a'), MigrationFailed);
}));

test('a handler registered before initialize declares the capability', async () => {
  const db = await Larder.spawn({ memory: true, initialize: false });
  try {
    db.onMigrate((p) => p.value);
    await db.initialize();
    assert.equal(db.migrationCallbacks, true);
    await noteWithCallback(db, [['a', 'ok']]);
    assert.equal((await db.object.get('a')).migratedFrom, '1');
  } finally {
    await db.close();
  }
});

test('without the capability the server does not ask', () => withDb({}, async (db) => {
  assert.equal(db.migrationCallbacks, false);
  const asked = [];
  const warnings = [];
  const onWarning = (w) => warnings.push(w.code);
  process.on('warning', onWarning);
  db.onMigrate((p) => asked.push(p)); // too late: initialize did not declare it
  await new Promise((r) => setImmediate(r));
  process.off('warning', onWarning);
  assert.deepEqual(warnings, ['LARDER_NO_MIGRATION_CALLBACKS']);
  await noteWithCallback(db, [['a', 'ok']]);
  await assert.rejects(db.object.get('a'), (e) => e instanceof MigrationFailed && /migrationCallbacks/.test(e.message));
  assert.deepEqual(asked, []);
  assert.equal((await db.cache.get('a')).version, '1');
}));

test('migrationCallbacks: false refuses the capability despite onMigrate', () => withDb({ onMigrate: (p) => p.value, migrationCallbacks: false }, async (db) => {
  assert.equal(db.migrationCallbacks, false);
  await noteWithCallback(db, [['a', 'ok']]);
  await assert.rejects(db.object.get('a'), MigrationFailed);
}));

test('a handler may call the server, and others are served while it works', () => withDb({ migrationCallbacks: true }, async (db) => {
  await db.cache.set('factor', 7);
  let release;
  const gate = new Promise((r) => (release = r));
  db.onMigrate(async (p) => {
    await gate;
    return { ...p.value, n: (await db.cache.get('factor')).value };
  });
  await noteWithCallback(db, [['a', 'ok']]);
  let done = false;
  const pending = db.object.get('a').then((r) => ((done = true), r));
  assert.equal((await db.cache.set('meanwhile', 1)).stored, true);
  assert.equal(done, false);
  release();
  assert.equal((await pending).value.n, 7);
}));

// MARK: - migrate.run

test('migrate.run counts, failures and begin/report/end progress', () => withDb({ onMigrate: modeHandler() }, async (db) => {
  await noteWithCallback(db, [['a', 'ok'], ['b', 'drop'], ['c', 'fail'], ['d', 'ok']]);
  await db.object.put('e', { type: 'Note', value: { n: 5, mode: 'new' } }); // already at version 2
  const progress = [];
  const counts = await db.migrate.run({ batchSize: 2, onProgress: (v) => progress.push(v) });
  const { failures, ...numbers } = counts;
  assert.deepEqual(numbers, { examined: 5, migrated: 2, upToDate: 1, failed: 1, dropped: 1 });
  assert.equal(failures.length, 1);
  assert.equal(failures[0].key, 'c');
  assert.equal(failures[0].type, 'Note');
  assert.equal(failures[0].fromVersion, '1');
  assert.equal(failures[0].error.code, ErrorCode.migrationFailed);
  // Every progress callback has run by the time the call resolves.
  const kinds = progress.map((p) => p.kind);
  assert.equal(kinds[0], 'begin');
  assert.equal(kinds.at(-1), 'end');
  assert.ok(kinds.slice(1, -1).length > 0 && kinds.slice(1, -1).every((k) => k === 'report'), kinds.join());
  assert.equal(progress[0].message, 'stored objects: 5');
  const percentages = progress.filter((p) => p.kind === 'report').map((p) => p.percentage);
  assert.deepEqual(percentages, [...percentages].sort((x, y) => x - y));
  assert.ok(percentages.at(-1) <= 100);
  assert.equal((await db.cache.get('a')).version, '2');
  assert.equal((await db.cache.get('a')).value.n, 10);
  assert.deepEqual(await db.cache.get('b'), { found: false });
  assert.equal((await db.cache.get('c')).version, '1');
  const again = await db.migrate.run();
  assert.deepEqual([again.migrated, again.failed, again.upToDate], [0, 1, 3]);
}));

test('migrate.run dryRun writes nothing back', () => withDb({ onMigrate: modeHandler() }, async (db) => {
  await noteWithCallback(db, [['a', 'ok'], ['b', 'drop']]);
  const counts = await db.migrate.run({ dryRun: true });
  assert.deepEqual([counts.examined, counts.migrated, counts.failed], [2, 1, 0]);
  assert.equal((await db.cache.get('a')).version, '1');
  assert.equal((await db.cache.get('b')).found, true);
  assert.equal((await db.migrate.run()).migrated, 1);
  assert.equal((await db.cache.get('a')).version, '2');
  assert.deepEqual(await db.cache.get('b'), { found: false });
}));

test("migrate.run onFailure: 'drop'", () => withDb({ onMigrate: modeHandler() }, async (db) => {
  await noteWithCallback(db, [['a', 'ok'], ['c', 'fail']]);
  const counts = await db.migrate.run({ onFailure: 'drop' });
  assert.deepEqual([counts.migrated, counts.failed, counts.dropped], [1, 1, 1]);
  assert.deepEqual(await db.cache.get('c'), { found: false });
  await assert.rejects(db.migrate.run({ onFailure: 'shrug' }), (e) => e instanceof InvalidParams && /onFailure/.test(e.message));
}));

test('migrate.run type and cache filters', () => {
  const handler = modeHandler();
  return withDb({ onMigrate: handler }, async (db) => {
    await db.schema.register('Note', '1', { n: 'integer', mode: 'string' });
    await db.object.put('x', { type: 'Note', value: { n: 1, mode: 'ok' }, cache: 'other' });
    await db.schema.register('Note', '2', { n: 'integer', mode: 'string' }, { migrations: [{ from: '1', steps: [{ op: 'callback' }] }] });
    await db.schema.register('Tag', '1', { label: 'string' });
    await db.object.put('t', { type: 'Tag', value: { label: 'l' } });
    await db.schema.register('Tag', '2', { label: 'string', colour: 'string?' });
    assert.equal((await db.migrate.run({ type: 'Tag' })).migrated, 1); // only adds an optional field
    assert.deepEqual(handler.calls, []);
    assert.equal((await db.migrate.run({ cache: 'default' })).migrated, 0);
    assert.equal((await db.migrate.run({ cache: 'nowhere' })).examined, 0);
    assert.equal((await db.migrate.run({ cache: 'other' })).migrated, 1);
    await assert.rejects(db.migrate.run({ batchSize: 0 }), (e) => e instanceof InvalidParams && /batchSize/.test(e.message));
  });
});

test('migrate.run with its own workDoneToken', () => withDb({ onMigrate: modeHandler() }, async (db) => {
  await noteWithCallback(db, [['a', 'ok']]);
  const progress = [];
  await db.migrate.run({ workDoneToken: 'mine', onProgress: (v) => progress.push(v.kind) });
  assert.equal(progress[0], 'begin');
  assert.equal(progress.at(-1), 'end');
  const tokens = new Set();
  const off = db.onEvent('$/progress', (p) => tokens.add(p.token));
  await db.migrate.run({ workDoneToken: 7 });
  off();
  assert.deepEqual([...tokens], [7]);
}));

test('migrate.run cancelled with an AbortSignal stops between batches', () => withDb({ migrationCallbacks: true }, async (db) => {
  const controller = new AbortController();
  let asked = 0;
  db.onMigrate((p) => {
    asked += 1;
    if (asked === 1) controller.abort();
    return p.value;
  });
  await noteWithCallback(db, [['a', 'ok'], ['b', 'ok'], ['c', 'ok'], ['d', 'ok']]);
  const e = await db.migrate.run({ batchSize: 1, signal: controller.signal }).catch((x) => x);
  assert.equal(e.code, ErrorCode.requestCancelled, String(e));
  assert.ok(e.data.migrated >= 1 && e.data.migrated < 4, JSON.stringify(e.data));
  assert.equal((await db.migrate.run()).migrated, 4 - e.data.migrated);
}));

test('MigrationMissing names the fields that differ', () => withDb({}, async (db) => {
  await db.schema.register('Shape', '1', { sides: 'integer' });
  await db.object.put('s', { type: 'Shape', value: { sides: 3 } });
  await db.schema.register('Shape', '2', { sides: 'string' });
  const e = await db.object.get('s').catch((x) => x);
  assert.ok(e instanceof MigrationMissing);
  assert.ok(e instanceof LarderError);
  assert.equal(e.code, -31030);
  assert.deepEqual(e.data, { type: 'Shape', fromVersion: '1', toVersion: '2', fields: ['sides (integer → string)'] });
  await db.schema.register('Shape', '3', { sides: 'string' }, { migrations: [{ from: '1', steps: [{ op: 'convert', field: 'sides', to: 'string' }] }] });
  assert.deepEqual((await db.object.get('s')).value, { sides: '3' });
}));

test('object.put sends version only when given', async () => {
  const fake = await Larder.spawn({ binary: fileURLToPath(new URL('./fixtures/fake-larder', import.meta.url)) });
  try {
    const given = await fake.object.put('n', { type: 'Note', value: { title: 'old' }, version: 1 });
    assert.deepEqual(given.sent, { key: 'n', type: 'Note', value: { title: 'old' }, version: 1 });
    const left = await fake.object.put('n', { type: 'Note', value: { title: 'new' }, version: undefined });
    assert.deepEqual(left.sent, { key: 'n', type: 'Note', value: { title: 'new' } });
  } finally {
    await fake.close();
  }
});

test('an older release writes at the version it knows; the object migrates when read', () => withDb({}, async (db) => {
  await db.schema.register('Note', '1', { text: 'string', stars: 'integer' });
  await db.schema.register('Note', '2', { body: 'string', rating: 'string' }, {
    migrations: [{ from: '1', steps: [
      { op: 'rename', from: 'text', to: 'body' },
      { op: 'convert', field: 'stars', to: 'string' },
      { op: 'rename', from: 'stars', to: 'rating' },
    ] }],
  });
  assert.deepEqual(await db.object.put('old', { type: 'Note', version: '1.0', value: { text: 'from 1.x', stars: 4 } }),
    { stored: true, type: 'Note', version: '1', revision: 1 });
  assert.deepEqual(await db.object.get('old'),
    { found: true, type: 'Note', version: '2', value: { body: 'from 1.x', rating: '4' }, migratedFrom: '1', revision: 2 });
  const missing = await db.object.put('x', { type: 'Note', version: '3', value: { body: 'b', rating: '1' } }).catch((e) => e);
  assert.ok(missing instanceof SchemaNotFound);
  assert.deepEqual(missing.data, { type: 'Note', version: '3' });
  const wrong = await db.object.put('x', { type: 'Note', version: '1', value: { body: 'b', rating: '1' } }).catch((e) => e);
  assert.ok(wrong instanceof InvalidObject);
  assert.equal(wrong.data.path, 'value.body');
}));

test('an array of objects under one key (HMCache cacheArray:forKey:)', () => withDb({}, async (db) => {
  await db.schema.register('Bar', '1', { name: 'string', date: 'date?' });
  const bars = [{ name: 'a' }, { name: 'b', date: '2017-01-01T00:00:00Z' }];
  assert.deepEqual(await db.object.put('bars', { type: 'Bar', values: new Set(bars) }), {
    stored: true, type: 'Bar', version: '1', form: 'array', count: 2, revision: 1,
  });
  assert.deepEqual(await db.object.get('bars'), {
    found: true, form: 'array', type: 'Bar', version: '1', values: bars, revision: 1,
  });
  const entry = await db.cache.get('bars');
  assert.equal(entry.form, 'array');
  assert.deepEqual(entry.value, bars);
  // Every field described, an unset one as null, as HMCache prints it.
  assert.deepEqual((await db.object.describe('bars')).description, [
    { '*Bar': { name: 'a', date: null } }, { '*Bar': { name: 'b', date: '2017-01-01T00:00:00Z' } },
  ]);
  assert.deepEqual((await db.object.hash('bars')), await db.object.hash({ type: 'Bar', values: bars }));
  assert.deepEqual(await db.object.equals('bars', { type: 'Bar', values: bars.slice(0, 1) }), { equal: false });
  assert.equal((await db.object.copy('bars', 'copy')).count, 2);
  assert.throws(() => db.object.put('x', { type: 'Bar', value: {}, values: [] }), /object\.put: give value or values, not both/);
  assert.throws(() => db.object.put('x', { type: 'Bar', values: 'ab' }), /values must be an array/);
  assert.throws(() => db.object.describe({ type: 'Bar', value: {}, values: [] }), /not both/);
  await assert.rejects(db.object.put('x', { type: 'Bar', values: [{ name: 'ok' }, { name: 2 }] }), (err) => {
    assert.ok(err instanceof InvalidObject);
    assert.deepEqual(err.data, { path: 'values[1].name', reason: 'expected string, got integer' });
    return true;
  });
}));

test('arrays migrate element by element; onMigrate sees the index, and a failing element is named', () => {
  const asked = [];
  const onMigrate = ({ value, index }) => {
    asked.push(index);
    return value.n === 2 ? DROP : { n: String(value.n) };
  };
  return withDb({ onMigrate }, async (db) => {
    await db.schema.register('Tally', '1', { n: 'integer' });
    await db.object.put('t', { type: 'Tally', values: [{ n: 1 }, { n: 2 }, { n: 3 }] });
    await db.schema.register('Tally', '2', { n: 'string' }, { migrations: [{ from: '1', steps: [{ op: 'callback' }] }] });
    assert.deepEqual(await db.object.get('t'), {
      found: true, form: 'array', type: 'Tally', version: '2', values: [{ n: '1' }, { n: '3' }],
      migratedFrom: '1', droppedElements: [1], revision: 2,
    });
    assert.deepEqual(asked, [0, 1, 2]);
    await db.schema.register('Tally', '3', { n: 'integer' }, {
      migrations: [{ from: '2', steps: [{ op: 'convert', field: 'n', to: 'integer' }] }],
    });
    await db.object.put('mixed', { type: 'Tally', version: '2', values: [{ n: '4' }, { n: 'four' }] });
    await assert.rejects(db.object.get('mixed'), (err) => {
      assert.ok(err instanceof MigrationFailed);
      assert.equal(err.data.index, 1);
      assert.match(err.message, /^element 1: /);
      return true;
    });
    assert.equal((await db.cache.get('mixed')).version, '2', 'nothing was written');
    const counts = await db.migrate.run();
    assert.equal(counts.failed, 2);
    assert.equal(counts.failures[0].index, 1);
  });
});
