// The sidecar process: start, close, and dying with calls in flight.
import { test } from './support.js';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { Larder, SidecarExited } from '../index.js';

const FAKE = fileURLToPath(new URL('./fixtures/fake-larder', import.meta.url));

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test('close sends shutdown and exit; the process ends with code 0', async () => {
  const db = await Larder.spawn({ memory: true, appVersion: '1.2.3' });
  const pid = db.pid;
  assert.ok(alive(pid));
  assert.deepEqual(await db.close(), { exitCode: 0, signal: null });
  assert.equal(db.exited, true);
  assert.ok(!alive(pid));
  // Closing again is harmless; calls afterwards reject at once.
  assert.deepEqual(await db.close(), { exitCode: 0, signal: null });
  await assert.rejects(db.cache.get('k'), SidecarExited);
});

test('writes pipelined just before close are committed', async () => {
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const dir = mkdtempSync(join(tmpdir(), 'larder-node-close-'));
  try {
    const db = await Larder.spawn({ store: dir });
    const sets = Array.from({ length: 100 }, (_, i) => db.cache.set(`k${i}`, i));
    await db.close();
    await Promise.all(sets);
    const again = await Larder.spawn({ store: dir });
    assert.equal((await again.cache.get('k99')).value, 99);
    await again.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a killed sidecar rejects every pending call with SidecarExited, promptly', async () => {
  const db = await Larder.spawn({ memory: true, args: ['--enable-test-methods'] });
  // debug.ask waits for our answer, which never comes: a call that stays pending.
  let asked;
  const askedOnce = new Promise((r) => (asked = r));
  db.onRequest('client.never', () => {
    asked();
    return new Promise(() => {});
  });
  const stuck = db.call('debug.ask', { method: 'client.never' });
  await askedOnce;
  const more = Array.from({ length: 1000 }, (_, i) => db.cache.set(`k${i}`, i));
  const started = Date.now();
  process.kill(db.pid, 'SIGKILL');
  const e = await stuck.catch((x) => x);
  assert.ok(e instanceof SidecarExited, `got ${e}`);
  assert.equal(e.signal, 'SIGKILL');
  assert.equal(e.exitCode, null);
  assert.equal(e.code, null);
  assert.match(e.message, /killed by SIGKILL/);
  assert.ok(Date.now() - started < 2000);
  // Sets either made it before the kill or reject the same way; none hangs.
  for (const r of await Promise.allSettled(more)) {
    if (r.status === 'rejected') assert.ok(r.reason instanceof SidecarExited);
  }
  await assert.rejects(db.cache.get('k1'), SidecarExited);
  assert.deepEqual(await db.close(), { exitCode: null, signal: 'SIGKILL' });
});

test('db.kill() ends the process; done resolves with how it ended', async () => {
  const db = await Larder.spawn({ memory: true });
  db.kill('SIGTERM');
  assert.deepEqual(await db.done, { exitCode: null, signal: 'SIGTERM' });
  await assert.rejects(db.call('cache.list'), (e) => e instanceof SidecarExited && e.signal === 'SIGTERM');
});

test('SidecarExited carries the exit code and the end of stderr', async () => {
  const db = await Larder.spawn({ binary: FAKE });
  const pending = db.call('hang');
  const crash = db.call('crash');
  for (const p of [pending, crash]) {
    const e = await p.catch((x) => x);
    assert.ok(e instanceof SidecarExited);
    assert.equal(e.exitCode, 3);
    assert.equal(e.signal, null);
    assert.match(e.stderr, /crashing as asked/);
    assert.match(e.message, /exited with code 3[\s\S]*crashing as asked/);
  }
  assert.match(db.stderr, /crashing as asked/);
});

test('spawn rejects with SidecarExited when the store cannot be opened', async () => {
  const e = await Larder.spawn({ store: '/proc/larder-cannot-be-here' }).catch((x) => x);
  assert.ok(e instanceof SidecarExited, `got ${e}`);
  assert.equal(e.exitCode, 2);
  assert.match(e.stderr, /cannot open the store/);
});

test('spawn rejects with SidecarExited when the binary does not exist', async () => {
  const e = await Larder.spawn({ binary: '/nonexistent/larder' }).catch((x) => x);
  assert.ok(e instanceof SidecarExited, `got ${e}`);
  assert.match(e.message, /could not run \/nonexistent\/larder/);
  assert.equal(e.cause.code, 'ENOENT');
});

test('store and memory together are refused', async () => {
  await assert.rejects(Larder.spawn({ store: '/tmp/x', memory: true }), TypeError);
});

test('close kills a sidecar that will not exit', async () => {
  const db = await Larder.spawn({ binary: FAKE, env: { ...process.env, FAKE_LARDER_IGNORE_EXIT: '1' } });
  const started = Date.now();
  const status = await db.close({ timeout: 200 });
  assert.equal(status.signal, 'SIGTERM');
  assert.ok(Date.now() - started < 3000);
});

test('content-length framing works end to end', async () => {
  const db = await Larder.spawn({ memory: true, framing: 'content-length' });
  try {
    await db.cache.set('ü', 'naïve ☃ \n line');
    assert.equal((await db.cache.get('ü')).value, 'naïve ☃ \n line');
  } finally {
    await db.close();
  }
});

test('unicode and large values survive the line framing', async () => {
  const db = await Larder.spawn({ memory: true });
  try {
    const big = 'é☃𝄞'.repeat(200_000);
    await db.cache.set('big', big);
    assert.equal((await db.cache.get('big')).value, big);
    const bytes = Buffer.alloc(3 * 1024 * 1024, 7);
    await db.cache.set('bytes', bytes);
    assert.ok((await db.cache.get('bytes')).data.equals(bytes));
  } finally {
    await db.close();
  }
});
