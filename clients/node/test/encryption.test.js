// Encrypted caches through the client and the real sidecar: keys given to
// spawn (bytes, base64, per cache, a key file), the errors of a wrong or
// missing key and of a changed value, and cache.rekey.
import { test, prerequisite } from './support.js';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EncryptionKeyError, findBinary, IntegrityError, InvalidParams, Larder, LarderError, SidecarExited } from '../index.js';

const OLD = Buffer.from(Array.from({ length: 32 }, (_, i) => i));
const NEW = Buffer.from(Array.from({ length: 32 }, (_, i) => 31 - i));
const OTHER = Buffer.alloc(32, 7);

function scratch(t) {
  const dir = mkdtempSync(join(tmpdir(), 'larder-node-encryption-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Runs `body(db)` on a sidecar of the store in `dir`, closing it afterwards. */
async function withDb(dir, options, body) {
  const db = await Larder.spawn({ store: join(dir, 'store'), ...options });
  try {
    return await body(db);
  } finally {
    await db.close();
  }
}

/** Creates `cache` encrypted under `key` with `count` entries k0, k1, ... */
async function fill(dir, { key = OLD, cache = 'secrets', count = 3 } = {}) {
  await withDb(dir, { encryptionKey: key }, async (db) => {
    assert.equal((await db.cache.open(cache, { encrypted: true })).config.encrypted, true);
    await db.cache.setMany(Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, `value ${i}`])), { cache });
  });
}

function keyFile(dir, key, mode) {
  const path = join(dir, `key-${mode.toString(8)}`);
  writeFileSync(path, key.toString('base64') + '\n');
  chmodSync(path, mode);
  return path;
}

/** The EncryptionKeyError a promise rejects with (anything else fails the test). */
async function keyError(promise) {
  const err = await promise.then(() => assert.fail('expected EncryptionKeyError'), (e) => e);
  assert.ok(err instanceof EncryptionKeyError, String(err));
  return err;
}

// MARK: - Keys

test('an encrypted cache reads and writes, and keeps nothing in clear on disk', async (t) => {
  const dir = scratch(t);
  await withDb(dir, { encryptionKey: OLD }, async (db) => {
    const opened = await db.cache.open('secrets', { encrypted: true });
    assert.equal(opened.created, true);
    assert.equal(opened.config.encrypted, true);
    await db.cache.set('key_plaintext_marker', { github: 'ghp_plaintext_marker' }, { cache: 'secrets' });
    await db.cache.set('raw', Buffer.from('bytes_plaintext_marker'), { cache: 'secrets' });
    assert.deepEqual((await db.cache.get('key_plaintext_marker', { cache: 'secrets' })).value, { github: 'ghp_plaintext_marker' });
    assert.equal((await db.cache.get('raw', { cache: 'secrets' })).data.toString(), 'bytes_plaintext_marker');
    assert.deepEqual(await db.cache.keys({ cache: 'secrets' }), { keys: ['key_plaintext_marker', 'raw'] });
    assert.equal((await db.cache.open('plain')).config.encrypted, false);
  });
  const store = join(dir, 'store');
  const onDisk = Buffer.concat(readdirSync(store).filter((f) => statSync(join(store, f)).isFile()).map((f) => readFileSync(join(store, f))));
  assert.equal(onDisk.includes('plaintext_marker'), false); // the key, the value and the data each hold it
  // The same key as base64 text opens it in the next process; read from disk this time.
  await withDb(dir, { encryptionKey: OLD.toString('base64') }, async (db) => {
    const entry = await db.cache.get('key_plaintext_marker', { cache: 'secrets' });
    assert.equal(entry.tier, 'disk');
    assert.deepEqual(entry.value, { github: 'ghp_plaintext_marker' });
  });
});

test('a wrong key rejects with keyMismatch, none with keyRequired', async (t) => {
  const dir = scratch(t);
  await fill(dir);
  // Two processes at once: the one with the right key reads, the other is refused.
  await withDb(dir, { encryptionKey: OLD }, (right) => withDb(dir, { encryptionKey: new Uint8Array(OTHER) }, async (wrong) => {
    assert.equal((await right.cache.get('k1', { cache: 'secrets' })).value, 'value 1');
    const e = await keyError(wrong.cache.get('k1', { cache: 'secrets' }));
    assert.ok(e instanceof LarderError);
    assert.deepEqual([e.code, e.reason, e.cache, e.retryable], [-31060, 'keyMismatch', 'secrets', false]);
    assert.deepEqual(e.data, { cache: 'secrets', reason: 'keyMismatch' });
    assert.equal((await keyError(wrong.cache.set('k1', 'overwritten', { cache: 'secrets' }))).reason, 'keyMismatch');
    assert.equal((await right.cache.get('k1', { cache: 'secrets' })).value, 'value 1', 'nothing was overwritten');
  }));
  await withDb(dir, {}, async (none) => {
    const e = await keyError(none.cache.open('secrets'));
    assert.deepEqual([e.reason, e.cache], ['keyRequired', 'secrets']);
    assert.equal((await keyError(none.cache.open('vault', { encrypted: true }))).reason, 'keyRequired');
    assert.deepEqual((await none.cache.list()).caches.map((c) => c.name), ['secrets'], 'vault was not created');
  });
});

test('keys per cache override the common key', async (t) => {
  const dir = scratch(t);
  await withDb(dir, { encryptionKey: OLD, encryptionKeys: { vault: NEW } }, async (db) => {
    await db.cache.open('secrets', { encrypted: true });
    await db.cache.open('vault', { encrypted: true });
    await db.cache.set('a', 1, { cache: 'secrets' });
    await db.cache.set('b', 2, { cache: 'vault' });
  });
  await withDb(dir, { encryptionKeys: new Map([['vault', NEW.toString('base64')]]) }, async (db) => {
    assert.equal((await db.cache.get('b', { cache: 'vault' })).value, 2);
    assert.equal((await keyError(db.cache.get('a', { cache: 'secrets' }))).reason, 'keyRequired');
  });
  await withDb(dir, { encryptionKey: NEW }, async (db) => {
    assert.equal((await db.cache.get('b', { cache: 'vault' })).value, 2);
    assert.equal((await keyError(db.cache.get('a', { cache: 'secrets' }))).reason, 'keyMismatch');
  });
});

test('a bad key is refused before the process starts', async (t) => {
  // A binary that does not exist: starting it would fail otherwise.
  const binary = join(scratch(t), 'no-such-larder');
  const cases = [
    [{ encryptionKey: Buffer.from('short') }, RangeError, /^encryptionKey must be 32 bytes, not 5$/],
    [{ encryptionKey: 'c2hvcnQ=' }, RangeError, /^encryptionKey must be base64 of 32 bytes, not of 5$/],
    [{ encryptionKey: 'not base64!' }, RangeError, /^encryptionKey is not standard base64/],
    [{ encryptionKey: 12345 }, TypeError, /^encryptionKey must be 32 bytes \(a Buffer or Uint8Array\) or their base64 as a string, not number$/],
    [{ encryptionKeys: { vault: new Uint8Array(31) } }, RangeError, /^encryptionKeys\["vault"\] must be 32 bytes, not 31$/],
    [{ encryptionKeys: [OLD] }, TypeError, /^encryptionKeys must be an object/],
    [{ encryptionKey: OLD, initialize: false }, TypeError, /initialize: false/],
    [{ encryptionKye: OLD }, TypeError, /unknown option encryptionKye \(did you mean encryptionKey\?\)/],
  ];
  for (const [options, Class, message] of cases) {
    await assert.rejects(Larder.spawn({ memory: true, binary, ...options }), (err) => err instanceof Class && message.test(err.message));
  }
});

test('keys may be given to initialize', async (t) => {
  const dir = scratch(t);
  await fill(dir);
  await withDb(dir, { initialize: false }, async (db) => {
    await assert.rejects(db.initialize({ encryptionKey: new Uint8Array(16) }), RangeError);
    await db.initialize({ encryptionKey: OLD.buffer.slice(OLD.byteOffset, OLD.byteOffset + 32) });
    assert.equal((await db.cache.get('k0', { cache: 'secrets' })).value, 'value 0');
  });
});

test('a private key file is used', async (t) => {
  const dir = scratch(t);
  const path = keyFile(dir, OLD, 0o600);
  await withDb(dir, { keyFile: path }, async (db) => {
    await db.cache.open('secrets', { encrypted: true });
    await db.cache.set('k', 'v', { cache: 'secrets' });
  });
  await withDb(dir, { encryptionKey: OLD }, async (db) => {
    assert.equal((await db.cache.get('k', { cache: 'secrets' })).value, 'v', 'sealed under the file\'s key');
  });
});

test('a key file others may read stops the sidecar, and spawn rejects with its reason', async (t) => {
  const dir = scratch(t);
  const path = keyFile(dir, OLD, 0o644);
  const err = await Larder.spawn({ store: join(dir, 'store'), keyFile: path }).then(() => assert.fail('started'), (e) => e);
  assert.ok(err instanceof SidecarExited, String(err));
  assert.equal(err.exitCode, 2);
  assert.match(err.message, new RegExp(`key file ${path} may be read by its group or others \\(mode 644\\)`));
  assert.match(err.message, /chmod 600/);
  assert.match(err.stderr, /chmod 600/);
});

// MARK: - Rekey

test('rekey re-seals under the new key, with progress', async (t) => {
  const dir = scratch(t);
  await fill(dir, { count: 5 });
  const seen = [];
  await withDb(dir, { encryptionKey: OLD }, async (db) => {
    const result = await db.cache.rekey('secrets', NEW, { batchSize: 2, onProgress: (v) => seen.push(v) });
    assert.deepEqual(result, { cache: 'secrets', resealed: 5, resumed: false });
    assert.equal((await db.cache.get('k4', { cache: 'secrets' })).value, 'value 4', 'this session now holds the new key');
  });
  assert.deepEqual(seen.map((v) => v.kind), ['begin', 'report', 'report', 'end']);
  assert.equal(seen.at(-1).message, '5 entries re-sealed');
  await withDb(dir, { encryptionKeys: { secrets: NEW.toString('base64') } }, async (db) => {
    assert.equal((await db.cache.get('k3', { cache: 'secrets' })).value, 'value 3');
  });
  await withDb(dir, { encryptionKey: OLD }, async (db) => {
    assert.equal((await keyError(db.cache.get('k0', { cache: 'secrets' }))).reason, 'keyMismatch');
  });
});

test('uses of a cache being rekeyed reject, retryable', async (t) => {
  const dir = scratch(t);
  await fill(dir, { count: 50 });
  await withDb(dir, { encryptionKey: OLD }, async (db) => {
    // Sent in one write: the get arrives before the rekey's 50 batches are done.
    const rekey = db.cache.rekey('secrets', NEW, { batchSize: 1 });
    const refused = keyError(db.cache.get('k0', { cache: 'secrets' }));
    assert.equal((await rekey).resealed, 50);
    const e = await refused;
    assert.deepEqual([e.reason, e.retryable], ['rekeyRunning', true]);
    assert.equal((await db.cache.get('k0', { cache: 'secrets' })).value, 'value 0', 'the same request succeeds afterwards');
  });
});

test('a rekey killed mid-way rejects with rekeyInterrupted until it is finished', async (t) => {
  const dir = scratch(t);
  await fill(dir, { count: 2000 });
  const db = await Larder.spawn({ store: join(dir, 'store'), encryptionKey: OLD });
  let reports = 0;
  const onProgress = (value) => {
    if (value.kind === 'report' && ++reports === 2) db.kill();
  };
  await assert.rejects(db.cache.rekey('secrets', NEW, { batchSize: 10, onProgress }), SidecarExited);
  await withDb(dir, { encryptionKey: OLD }, async (again) => {
    const e = await keyError(again.cache.get('k0', { cache: 'secrets' }));
    assert.deepEqual([e.reason, e.retryable], ['rekeyInterrupted', false]);
    const finished = await again.cache.rekey('secrets', NEW);
    assert.equal(finished.resumed, true);
    assert.ok(finished.resealed > 0 && finished.resealed < 2000, String(finished.resealed));
  });
  await withDb(dir, { encryptionKey: NEW }, async (fresh) => {
    const keys = Array.from({ length: 2000 }, (_, i) => `k${i}`);
    const { entries } = await fresh.cache.getMany(keys, { cache: 'secrets' });
    assert.deepEqual(keys.filter((k, i) => entries[k].value !== `value ${i}`), []);
  });
});

test('rekey checks the new key here and the cache on the server', async (t) => {
  const dir = scratch(t);
  await fill(dir);
  await withDb(dir, { encryptionKey: OLD }, async (db) => {
    await assert.rejects(db.cache.rekey('secrets', Buffer.from('new')), { name: 'RangeError', message: 'cache.rekey: key must be 32 bytes, not 3' });
    await assert.rejects(db.cache.rekey('secrets', NEW, { batchSise: 2 }), /unknown option batchSise \(did you mean batchSize\?\)/);
    await db.cache.set('k', 'v', { cache: 'plain' });
    await assert.rejects(db.cache.rekey('plain', NEW), (e) => e instanceof InvalidParams && /not encrypted/.test(e.message));
    assert.equal((await db.cache.get('k0', { cache: 'secrets' })).value, 'value 0', 'still under the old key');
  });
  await withDb(dir, { encryptionKey: OTHER }, async (db) => {
    const e = await keyError(db.cache.rekey('secrets', NEW));
    assert.equal(e.reason, 'keyMismatch', 'only a session holding the current key may rekey');
  });
});

// MARK: - Integrity

const python = spawnSync('python3', ['-c', 'import sqlite3'], { encoding: 'utf8' });
const noPython = prerequisite(python.status !== 0 && 'python3 with sqlite3 is needed to change a sealed value');

/** Flips one byte inside the sealed value of the entry of `size` bytes, as something outside Larder might, while no sidecar runs. */
function changeASealedValue(store, size) {
  const script = `
import sqlite3, sys
connection = sqlite3.connect(sys.argv[1])
(row, value), = connection.execute("SELECT id, value FROM entries WHERE size = ?", (int(sys.argv[2]),)).fetchall()
changed = bytearray(value)
changed[20] ^= 0x01
connection.execute("UPDATE entries SET value = ? WHERE id = ?", (bytes(changed), row))
connection.commit()
connection.close()
`;
  const r = spawnSync('python3', ['-c', script, join(store, 'larder.db'), String(size)], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
}

test('a changed sealed value rejects with IntegrityError for that entry only', { skip: noPython }, async (t) => {
  const dir = scratch(t);
  const changed = 'a value of 21 bytes!';
  await withDb(dir, { encryptionKey: OLD }, async (db) => {
    await db.cache.open('secrets', { encrypted: true });
    await db.cache.set('changed', changed, { cache: 'secrets' });
    await db.cache.set('intact', 'short', { cache: 'secrets' });
  });
  changeASealedValue(join(dir, 'store'), JSON.stringify(changed).length);
  await withDb(dir, { encryptionKey: OLD }, async (db) => {
    const e = await db.cache.get('changed', { cache: 'secrets' }).then(() => assert.fail('read'), (err) => err);
    assert.ok(e instanceof IntegrityError, String(e));
    assert.deepEqual([e.code, e.cache, e.key], [-31061, 'secrets', 'changed']);
    assert.equal((await db.cache.get('intact', { cache: 'secrets' })).value, 'short');
    assert.deepEqual(await db.cache.remove('changed', { cache: 'secrets' }), { removed: true });
    assert.deepEqual(await db.cache.get('changed', { cache: 'secrets' }), { found: false });
  });
});

test('entities cannot be encrypted', async (t) => {
  await withDb(scratch(t), { encryptionKey: OLD }, async (db) => {
    const define = db.entity.define('M', [{ name: 'User', identifier: 'id', attributes: { id: 'integer' } }], { encrypted: true });
    await assert.rejects(define, (e) => e instanceof InvalidParams && /entities cannot be encrypted/.test(e.message));
  });
});

test('the README example runs', async (t) => {
  const dir = scratch(t);
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const section = readme.split('## Encrypted caches\n')[1] ?? '';
  const example = /```js\n([\s\S]*?)```/.exec(section);
  assert.ok(example, 'README.md\'s Encrypted caches section has no example');
  const script = join(dir, 'example.mjs');
  writeFileSync(script, example[1].replace("from 'larder'", `from ${JSON.stringify(new URL('../index.js', import.meta.url).href)}`));
  const run = spawnSync(process.execPath, [script], { env: { ...process.env, LARDER_BIN: findBinary(), TMPDIR: dir }, encoding: 'utf8', timeout: 60_000 });
  assert.equal(run.status, 0, run.stderr);
  assert.deepEqual(run.stdout.trim().split('\n'), [
    'keyMismatch', 'begin', 'end', '{"cache":"secrets","resealed":1,"resumed":false}', '{"token":"ghp_example"}',
  ]);
});
