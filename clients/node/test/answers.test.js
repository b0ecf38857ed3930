// Answers read by hand where they have the common shape, and by JSON.parse
// otherwise: both must settle calls exactly as the full message says.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import { setImmediate as turn } from 'node:timers/promises';
import { Larder, LarderError } from '../index.js';

/** A Larder over a child process that is two pipes; `answer(text)` writes a line to its stdout. */
function connected() {
  const child = new EventEmitter();
  child.pid = 1;
  child.spawnfile = 'fake';
  child.stdin = new PassThrough();
  child.stdout = new PassThrough();
  child.stderr = new PassThrough();
  const errors = [];
  const db = new Larder(/** @type {any} */ (child), { onError: (err) => errors.push(err) });
  return { db, errors, answer: (text) => child.stdout.write(text + '\n') };
}

test('a result in the common shape settles its call, decoded as the method wants', async () => {
  const { db, errors, answer } = connected();
  const plain = db.call('x.plain');
  const bytes = db.cache.get('k');
  answer('{"jsonrpc":"2.0","id":2,"result":{"found":true,"data":"aGk=","tier":"memory"}}');
  answer('{"jsonrpc":"2.0","id":1,"result":[1,"two",{"three":3}]}');
  assert.deepEqual(await plain, [1, 'two', { three: 3 }]);
  assert.deepEqual(await bytes, { found: true, data: Buffer.from('hi'), tier: 'memory' });
  assert.deepEqual(errors, []);
});

test('answers that only look like the common shape are read in full', async () => {
  const { db, errors, answer } = connected();
  const failed = db.call('x.one');
  const left = db.call('x.two');
  // Another member after the result: the whole message counts, so the error rejects.
  answer('{"jsonrpc":"2.0","id":1,"result":1,"error":{"code":-32000,"message":"no"}}');
  await assert.rejects(failed, (err) => err instanceof LarderError && err.code === -32000);
  // A leading zero is not JSON, and an id nobody waits for is reported.
  answer('{"jsonrpc":"2.0","id":02,"result":1}');
  answer('{"jsonrpc":"2.0","id":7,"result":1}');
  answer('{"jsonrpc":"2.0","id":2,"result":nope}');
  await turn();
  assert.deepEqual(errors.map((e) => e.message.replace(/:.*/s, '')), [
    'larder sent something that is not JSON',
    'larder sent a response for no pending request (id 7)',
    'larder sent something that is not JSON',
  ]);
  answer('{"jsonrpc":"2.0","id":2,"result":"fine"}');
  assert.equal(await left, 'fine');
});
