// Requests from the server to the client through debug.ask (real binary), and
// $/progress routing (a stand-in server).
import { test, before, after } from './support.js';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { Larder, LarderError, MethodNotFound, InternalError } from '../index.js';

const FAKE = fileURLToPath(new URL('./fixtures/fake-larder', import.meta.url));

let db;
before(async () => {
  db = await Larder.spawn({ memory: true, args: ['--enable-test-methods'] });
});
after(async () => {
  await db?.close();
});

test('debug.ask is answered by a synchronous onRequest handler', async () => {
  const seen = [];
  db.onRequest('client.echo', (params, request) => {
    seen.push({ params, request });
    return { echoed: params };
  });
  const r = await db.call('debug.ask', { method: 'client.echo', params: { n: 1, s: 'two' } });
  assert.deepEqual(r, { result: { echoed: { n: 1, s: 'two' } } });
  assert.equal(seen.length, 1);
  assert.equal(seen[0].request.method, 'client.echo');
  assert.match(seen[0].request.id, /^larder-\d+$/);
});

test('an async handler, and one returning nothing (null)', async () => {
  db.onRequest('client.later', async (params) => {
    await new Promise((r) => setTimeout(r, 20));
    return params.x * 2;
  });
  db.onRequest('client.nothing', () => {});
  assert.deepEqual(await db.call('debug.ask', { method: 'client.later', params: { x: 21 } }), { result: 42 });
  assert.deepEqual(await db.call('debug.ask', { method: 'client.nothing' }), { result: null });
});

test('a thrown LarderError answers with its code, message and data', async () => {
  db.onRequest('client.refuse', async () => {
    throw new LarderError(-32050, 'not today', { retryAfter: 5 });
  });
  assert.deepEqual(await db.call('debug.ask', { method: 'client.refuse' }), {
    error: { code: -32050, message: 'not today', data: { retryAfter: 5 } },
  });
});

test('any other thrown error answers -32603', async () => {
  db.onRequest('client.bug', () => {
    throw new TypeError('oops');
  });
  const r = await db.call('debug.ask', { method: 'client.bug' });
  assert.equal(r.error.code, InternalError.code);
  assert.match(r.error.message, /oops/);
});

test('a request without a handler answers -32601; the off function removes one', async () => {
  const r = await db.call('debug.ask', { method: 'client.unknown' });
  assert.equal(r.error.code, MethodNotFound.code);
  const off = db.onRequest('client.temp', () => 'here');
  assert.deepEqual(await db.call('debug.ask', { method: 'client.temp' }), { result: 'here' });
  off();
  assert.equal((await db.call('debug.ask', { method: 'client.temp' })).error.code, -32601);
});

test('many asks in flight at once, answered out of order', async () => {
  db.onRequest('client.delay', ({ ms, tag }) => new Promise((r) => setTimeout(() => r(tag), ms)));
  const asks = [50, 10, 30, 0, 20].map((ms, tag) => db.call('debug.ask', { method: 'client.delay', params: { ms, tag } }));
  const answers = await Promise.all(asks);
  assert.deepEqual(answers.map((a) => a.result), [0, 1, 2, 3, 4]);
});

test('onMigrate answers {value}, {drop: true} for Larder.DROP, or an error (through debug.ask)', async () => {
  db.onMigrate(async ({ value }) => {
    if (value.drop) return Larder.DROP;
    if (value.bad) throw new LarderError(-32099, 'cannot migrate', { id: value.id });
    return { ...value, version: 2 };
  });
  const ask = (value) => db.call('debug.ask', { method: 'migrate.object', params: { value } });
  assert.deepEqual(await ask({ id: 1 }), { result: { value: { id: 1, version: 2 } } });
  assert.deepEqual(await ask({ id: 2, drop: true }), { result: { drop: true } });
  assert.deepEqual(await ask({ id: 3, bad: true }), { error: { code: -32099, message: 'cannot migrate', data: { id: 3 } } });
});

// migrate.run against the real server is in objects.test.js; the stand-in checks $/progress routing details.
test('$/progress goes to the call with its token, or to onProgress(token)', async () => {
  const fake = await Larder.spawn({ binary: FAKE, memory: true });
  try {
    assert.equal(fake.server.serverInfo.name, 'fake-larder');
    const progress = [];
    const others = [];
    fake.onEvent('$/progress', (p) => others.push(p.token));
    const r = await fake.call('work', { steps: 3 }, { onProgress: (value) => progress.push(value) });
    assert.match(r.token, /^node-\d+$/);
    assert.deepEqual(progress.map((p) => p.kind), ['begin', 'report', 'report', 'report', 'end']);
    assert.deepEqual(progress[3], { kind: 'report', done: 3, total: 3 });
    assert.ok(others.includes('someone-else'));

    // A token given in params is kept.
    const own = [];
    assert.equal((await fake.call('work', { steps: 1, workDoneToken: 'given' }, { onProgress: (v) => own.push(v.kind) })).token, 'given');
    assert.deepEqual(own, ['begin', 'report', 'end']);

    // A token registered by hand also hears its progress.
    const manual = [];
    const off = fake.onProgress('mine', (v) => manual.push(v.kind));
    await fake.call('work', { steps: 0, workDoneToken: 'mine' });
    off();
    assert.deepEqual(manual, ['begin', 'end']);
  } finally {
    await fake.close();
  }
});

test('namespace() calls methods without their own wrapper', async () => {
  assert.deepEqual(await db.namespace('schema').list({}), { types: [] });
  await assert.rejects(db.namespace('schema').define({}), MethodNotFound);
  await assert.rejects(db.namespace('debug').advanceClock({ seconds: 1 }), (e) => e.code === -32803);
});
