// Server notifications: cache.evicted, cache.removed and cache.cleared.
import { test } from './support.js';
import assert from 'node:assert/strict';
import { Larder } from '../index.js';

test('cache.evicted after subscribing to one cache', async () => {
  const db = await Larder.spawn({ memory: true });
  try {
    const evicted = [];
    const all = [];
    db.onEvent('cache.evicted', (params) => evicted.push(params));
    db.onEvent('*', (params, method) => all.push(method));
    await db.cache.subscribe('small');
    await db.cache.open('small', { persistent: false, memory: { maxCount: 2 } });
    await db.cache.open('quiet', { persistent: false, memory: { maxCount: 1 } });
    for (const key of ['a', 'b', 'c', 'd']) await db.cache.set(key, key, { cache: 'small' });
    for (const key of ['a', 'b']) await db.cache.set(key, key, { cache: 'quiet' });
    assert.deepEqual(evicted, [
      { cache: 'small', group: '', key: 'a', tier: 'memory', reason: 'capacity' },
      { cache: 'small', group: '', key: 'b', tier: 'memory', reason: 'capacity' },
    ]);
    assert.deepEqual(all, ['cache.evicted', 'cache.evicted']);
    assert.equal((await db.cache.stats({ cache: 'small' })).memory.evictions, 2);
  } finally {
    await db.close();
  }
});

test('events: true in spawn subscribes to every cache; cache.cleared', async () => {
  const db = await Larder.spawn({ memory: true, events: true });
  try {
    const cleared = [];
    const evicted = [];
    db.onEvent('cache.cleared', (p) => cleared.push(p));
    db.onEvent('cache.evicted', (p) => evicted.push(p));
    await db.cache.set('k', 1, { cache: 'one', group: 'g' });
    await db.cache.clear({ cache: 'one', group: 'g', tier: 'memory' });
    await db.cache.clear({ cache: 'one' });
    assert.deepEqual(cleared, [
      { cache: 'one', group: 'g', tier: 'memory' },
      { cache: 'one', tier: 'all' },
    ]);
    await db.cache.open('disk', { disk: { maxCount: 1 } });
    await db.cache.set('x', 1, { cache: 'disk' });
    await db.cache.set('y', 2, { cache: 'disk', group: 'h' });
    assert.equal(evicted.length, 1);
    assert.equal(evicted[0].tier, 'disk');
    assert.equal(evicted[0].key, 'x');
  } finally {
    await db.close();
  }
});

test('an event arrives before the answer to the request that caused it', async () => {
  const db = await Larder.spawn({ memory: true, events: true });
  try {
    await db.cache.open('tiny', { persistent: false, memory: { maxCount: 1 } });
    await db.cache.set('first', 1, { cache: 'tiny' });
    let seen = false;
    db.onEvent('cache.evicted', () => (seen = true));
    await db.cache.set('second', 2, { cache: 'tiny' });
    assert.equal(seen, true);
  } finally {
    await db.close();
  }
});

test('removing a handler, and a throwing handler goes to onError', async () => {
  const errors = [];
  const db = await Larder.spawn({ memory: true, events: true, onError: (e) => errors.push(e) });
  try {
    let calls = 0;
    const off = db.onEvent('cache.cleared', () => calls++);
    db.onEvent('cache.cleared', () => {
      throw new Error('handler bug');
    });
    await db.cache.set('k', 1);
    await db.cache.clear();
    off();
    await db.cache.clear();
    assert.equal(calls, 1);
    assert.equal(errors.length, 2);
    assert.equal(errors[0].message, 'handler bug');
  } finally {
    await db.close();
  }
});

test('withValues: evicted and removed entries arrive with their values', async () => {
  const db = await Larder.spawn({ memory: true });
  try {
    const events = [];
    db.onEvent('*', (params, method) => events.push([method, params]));
    await db.cache.subscribe('lru', { withValues: true });
    await db.cache.subscribe({ cache: 'plain' });
    await db.cache.open('lru', { persistent: false, memory: { maxCount: 1 } });
    await db.cache.set('a', { n: 1 }, { cache: 'lru' });
    await db.cache.set('b', undefined, { cache: 'lru', data: Buffer.from([0, 1, 2]) });
    assert.equal((await db.cache.remove('b', { cache: 'lru' })).removed, true);
    assert.equal((await db.cache.remove('b', { cache: 'lru' })).removed, false, 'nothing there: no event');
    await db.cache.set('x', 1, { cache: 'plain' });
    await db.cache.remove('x', { cache: 'plain' });
    assert.deepEqual(events, [
      ['cache.evicted', { cache: 'lru', group: '', key: 'a', tier: 'memory', reason: 'capacity', value: { n: 1 } }],
      ['cache.removed', { cache: 'lru', group: '', key: 'b', tier: 'all', reason: 'removed', data: 'AAEC' }],
      ['cache.removed', { cache: 'plain', group: '', key: 'x', tier: 'all', reason: 'removed' }],
    ]);
  } finally {
    await db.close();
  }
});
