// The transport's writes: batched per turn of the event loop, and held while the pipe has not drained.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { PassThrough, Writable } from 'node:stream';
import { setImmediate as turn } from 'node:timers/promises';
import { Transport } from '../index.js';

/** A child process whose stdin takes one write and then waits until `release()`. */
function slowChild() {
  const writes = [];
  let pending = [];
  const child = new EventEmitter();
  child.pid = 1;
  child.spawnfile = 'slow';
  child.stdout = new PassThrough();
  child.stderr = new PassThrough();
  child.stdin = new Writable({
    highWaterMark: 1,
    write(chunk, _encoding, callback) {
      writes.push(chunk.toString());
      pending.push(callback);
    },
  });
  const release = () => {
    const callbacks = pending;
    pending = [];
    for (const cb of callbacks) cb();
  };
  return { child, writes, release };
}

test('messages sent in one turn leave in one write, and nothing more is written until the pipe drains', async () => {
  const { child, writes, release } = slowChild();
  const transport = new Transport(child);
  transport.send('{"a":1}');
  transport.send('{"a":2}');
  await turn();
  assert.deepEqual(writes, ['{"a":1}\n{"a":2}\n']);
  transport.send('{"a":3}');
  await turn();
  transport.send('{"a":4}');
  await turn();
  assert.equal(writes.length, 1, 'no write while the pipe is full');
  release();
  await turn();
  assert.deepEqual(writes, ['{"a":1}\n{"a":2}\n', '{"a":3}\n{"a":4}\n']);
  release();
});

test('content-length framing frames each message of a batch', async () => {
  const { child, writes, release } = slowChild();
  const transport = new Transport(child, { framing: 'content-length' });
  transport.send('"☃"');
  transport.send('{}');
  await turn();
  assert.deepEqual(writes, ['Content-Length: 5\r\n\r\n"☃"Content-Length: 2\r\n\r\n{}']);
  release();
});
