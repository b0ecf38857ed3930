// Pipelining: many requests in flight at once, written in few batches.
import { test } from './support.js';
import assert from 'node:assert/strict';
import net from 'node:net';
import { Larder, InvalidParams } from '../index.js';

test('10,000 pipelined sets all resolve, each with its own answer', async (t) => {
  const db = await Larder.spawn({ memory: true });
  try {
    const N = 10_000;
    const realWrite = net.Socket.prototype.write;
    let writes = 0;
    net.Socket.prototype.write = function (...args) {
      writes++;
      return realWrite.apply(this, args);
    };
    let results;
    const started = performance.now();
    try {
      const promises = [];
      // Values of different sizes: a mixed-up answer would show in `size`.
      for (let i = 0; i < N; i++) promises.push(db.cache.set(`k${i}`, 'x'.repeat(i % 37), { cache: 'bulk' }));
      results = await Promise.all(promises);
    } finally {
      net.Socket.prototype.write = realWrite;
    }
    const ms = performance.now() - started;
    assert.equal(results.length, N);
    results.forEach((r, i) => assert.deepEqual(r, { stored: true, size: (i % 37) + 2, revision: i + 1 }));
    assert.ok(writes < 20, `expected the requests in a few writes, not ${writes}`);

    const stats = await db.cache.stats({ cache: 'bulk' });
    assert.equal(stats.memory.count, N);
    const sample = ['k0', 'k1', 'k36', 'k9999'];
    const { entries } = await db.cache.getMany(sample, { cache: 'bulk' });
    for (const k of sample) assert.equal(entries[k].value, 'x'.repeat(Number(k.slice(1)) % 37));
    t.diagnostic(`10,000 sets in ${ms.toFixed(0)} ms, ${writes} writes`);
  } finally {
    await db.close();
  }
});

test('mixed pipelined requests, with failures among them, settle in their own promises', async () => {
  const db = await Larder.spawn({ memory: true });
  try {
    const calls = [];
    for (let i = 0; i < 500; i++) {
      calls.push(db.cache.set(`m${i}`, i));
      calls.push(db.cache.get(`m${i}`));
      calls.push(db.cache.set('', i)); // invalid: empty key
      calls.push(db.call('no.such.method'));
    }
    const settled = await Promise.allSettled(calls);
    for (let i = 0; i < 500; i++) {
      const [set, get, bad, unknown] = settled.slice(i * 4, i * 4 + 4);
      assert.deepEqual(set.value, { stored: true, size: String(i).length, revision: i + 1 });
      assert.equal(get.value.value, i);
      assert.equal(get.value.revision, i + 1);
      assert.ok(bad.reason instanceof InvalidParams);
      assert.equal(unknown.reason.code, -32601);
    }
  } finally {
    await db.close();
  }
});
