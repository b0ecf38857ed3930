// LarderError and its subclasses, from the real server and from fromResponse.
import { test, before, after } from './support.js';
import assert from 'node:assert/strict';
import * as larder from '../index.js';

const {
  Larder, LarderError, ErrorCode, SidecarExited,
  InvalidRequest, MethodNotFound, InvalidParams,
  ServerNotInitialized, RequestCancelled, RequestFailed,
  StoreUnavailable, StorageUnavailable, CacheNotFound, EncryptionKeyError, IntegrityError, AppVersionSuperseded,
} = larder;

let db;
before(async () => {
  db = await Larder.spawn({ memory: true, args: ['--enable-test-methods'] });
});
after(async () => {
  await db?.close();
});

// Which class each code has, by name, is contract.test.js's to check against openrpc.json.
test('every protocol code has its class, and unknown codes stay LarderError', () => {
  for (const [name, code] of Object.entries(ErrorCode)) {
    const e = LarderError.fromResponse({ code, message: `m ${name}`, data: { x: 1 } });
    const Class = e.constructor;
    assert.notEqual(Class, LarderError, name);
    assert.ok(e instanceof LarderError);
    assert.ok(e instanceof Error);
    assert.equal(e.code, code);
    assert.equal(Class.code, code);
    assert.equal(e.message, `m ${name}`);
    assert.deepEqual(e.data, { x: 1 });
    assert.equal(e.name, Class.name);
  }
  const unknown = LarderError.fromResponse({ code: -1, message: 'app specific' });
  assert.equal(unknown.constructor, LarderError);
  assert.equal(unknown.code, -1);
  assert.equal(unknown.data, undefined);
  assert.deepEqual(unknown.toJSON(), { code: -1, message: 'app specific' });
});

test('the encryption errors read their data', () => {
  const running = LarderError.fromResponse({ code: -31060, message: 'm', data: { cache: 's', reason: 'rekeyRunning', retryable: true } });
  assert.deepEqual([running.reason, running.cache, running.retryable], ['rekeyRunning', 's', true]);
  const bare = new EncryptionKeyError('m');
  assert.deepEqual([bare.code, bare.reason, bare.cache, bare.retryable], [-31060, undefined, undefined, false]);
  const sealedKey = LarderError.fromResponse({ code: -31061, message: 'm', data: { cache: 's' } });
  assert.ok(sealedKey instanceof IntegrityError);
  assert.deepEqual([sealedKey.cache, sealedKey.key], ['s', undefined]);
});

test('AppVersionSuperseded reads its data', () => {
  const e = LarderError.fromResponse({ code: -31070, message: 'm', data: { cache: 'c', appVersion: '1.0', cacheAppVersion: '2.0' } });
  assert.ok(e instanceof AppVersionSuperseded);
  assert.deepEqual([e.cache, e.appVersion, e.cacheAppVersion, e.retryable], ['c', '1.0', '2.0', false]);
});

test('retryable is what data says', () => {
  const unavailable = LarderError.fromResponse({ code: -31003, message: 'storage unavailable: gone', data: { retryable: true, sqlState: '57P01' } });
  assert.ok(unavailable instanceof StorageUnavailable);
  assert.equal(unavailable.retryable, true);
  assert.equal(LarderError.fromResponse({ code: -31002, message: 'm', data: { sqlState: '40001', retryable: true } }).retryable, true);
  assert.equal(LarderError.fromResponse({ code: -31002, message: 'm', data: { sqliteCode: 5 } }).retryable, false);
  assert.equal(LarderError.fromResponse({ code: -31001, message: 'm' }).retryable, false);
});

test('applications register classes for their own codes', () => {
  class QuotaError extends LarderError {
    static code = -30500;
    constructor(message, data) {
      super(-30500, message, data);
    }
  }
  LarderError.register(QuotaError);
  const e = LarderError.fromResponse({ code: -30500, message: 'over quota', data: 3 });
  assert.ok(e instanceof QuotaError);
  assert.equal(e.data, 3);
});

test('MethodNotFound for an unknown method', async () => {
  const e = await db.call('no.such.method', {}).catch((x) => x);
  assert.ok(e instanceof MethodNotFound);
  assert.equal(e.code, -32601);
  assert.match(e.message, /no\.such\.method/);
});

test('InvalidParams for bad params', async () => {
  await assert.rejects(db.cache.set('', 1), (e) => e instanceof InvalidParams && /must not be empty/.test(e.message));
  await assert.rejects(db.cache.set('k', 1, { ttl: -1 }), InvalidParams);
  await assert.rejects(db.cache.set('k', undefined, { data: '!!not base64!!' }), InvalidParams);
  await assert.rejects(db.call('cache.get', { key: 5 }), InvalidParams);
  await assert.rejects(db.call('cache.get', [1]), InvalidParams);
  await assert.rejects(db.call('cache.drop', {}), InvalidParams);
});

test('CacheNotFound carries the cache name in data', async () => {
  const e = await db.cache.stats({ cache: 'ghost' }).catch((x) => x);
  assert.ok(e instanceof CacheNotFound);
  assert.equal(e.code, -31010);
  assert.deepEqual(e.data, { cache: 'ghost' });
});

test('InvalidRequest for a second initialize', async () => {
  await assert.rejects(db.call('initialize', {}), InvalidRequest);
});

test('RequestFailed: advancing the system clock', async () => {
  await assert.rejects(db.call('debug.advanceClock', { seconds: 1 }), RequestFailed);
});

test('ServerNotInitialized under --require-initialize', async () => {
  const strict = await Larder.spawn({ memory: true, args: ['--require-initialize'], initialize: false });
  try {
    await assert.rejects(strict.cache.get('k'), ServerNotInitialized);
    const server = await strict.call('initialize', { clientInfo: { name: 'test', version: '0' } });
    assert.equal(server.serverInfo.name, 'larder');
    assert.deepEqual(await strict.cache.get('k'), { found: false });
  } finally {
    await strict.close();
  }
});

test('StoreUnavailable when initialize names an impossible store', async () => {
  await assert.rejects(
    Larder.spawn({ memory: true, initialize: false }).then(async (d) => {
      try {
        await d.call('initialize', { store: { path: '/proc/larder-cannot-be-here/store' } });
      } finally {
        await d.close();
      }
    }),
    (e) => e instanceof StoreUnavailable && e.data.path === '/proc/larder-cannot-be-here/store',
  );
});

test('RequestCancelled for a request cancelled with an AbortSignal', async () => {
  // debug.ask stays open until the client answers; cancel it first.
  let answer;
  db.onRequest('slow.question', () => new Promise((resolve) => (answer = resolve)));
  const controller = new AbortController();
  const asked = db.call('debug.ask', { method: 'slow.question' }, { signal: controller.signal });
  await new Promise((r) => setTimeout(r, 50));
  controller.abort();
  await assert.rejects(asked, RequestCancelled);
  answer('too late');
  // The connection is still fine afterwards.
  assert.deepEqual(await db.cache.get('k'), { found: false });
});

test('SidecarExited is a LarderError without a code', () => {
  const e = new SidecarExited('gone', { exitCode: 3, signal: null, stderr: 'bye' });
  assert.ok(e instanceof LarderError);
  assert.equal(e.code, null);
  assert.equal(e.exitCode, 3);
  assert.equal(e.stderr, 'bye');
});
