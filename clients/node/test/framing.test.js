// Framing, fed in every way the pipe may cut it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { frame, MessageReader, MessageWriter } from '../framing.js';

function read(framing, chunks) {
  const messages = [];
  const errors = [];
  const reader = new MessageReader(framing, (m) => messages.push(m), (e) => errors.push(e.message));
  for (const c of chunks) reader.push(Buffer.from(c));
  const left = reader.end();
  return { messages, errors, left };
}

/** The bytes cut into pieces of `size`. */
function pieces(bytes, size) {
  const out = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
}

const BODIES = ['{"id":1,"s":"naïve ☃ 😀"}', '[{"id":2},{"id":3}]', '{"id":4,"s":"a\\nb"}'];

for (const framing of ['lines', 'content-length']) {
  test(`${framing}: every cut of the stream gives the same messages`, () => {
    const bytes = Buffer.from(BODIES.map((b) => frame(b, framing)).join(''));
    for (const size of [1, 2, 3, 5, 7, 64, bytes.length]) {
      const { messages, errors, left } = read(framing, pieces(bytes, size));
      assert.deepEqual(messages, BODIES, `pieces of ${size}`);
      assert.deepEqual(errors, []);
      assert.equal(left, 0);
    }
  });
}

test('lines: CR before LF is dropped, blank lines skipped, a last line without LF counts', () => {
  const { messages } = read('lines', ['{"a":1}\r\n', '\n  \t\r\n', '{"b":2}\n{"c"', ':3}']);
  assert.deepEqual(messages, ['{"a":1}', '{"b":2}', '{"c":3}']);
});

test('content-length: other headers are ignored, a header without it is reported, an unfinished body left over', () => {
  const good = 'Content-Type: application/json\r\ncontent-length: 7\r\n\r\n{"a":1}';
  const { messages, errors, left } = read('content-length', [good, 'X-Other: 1\r\n\r\n', frame('{"b":2}', 'content-length'), 'Content-Length: 10\r\n\r\n{"c"']);
  assert.deepEqual(messages, ['{"a":1}', '{"b":2}']);
  assert.equal(errors.length, 1);
  assert.match(errors[0], /a header without Content-Length/);
  assert.equal(left, 4);
});

test('content-length counts bytes, not characters', () => {
  assert.equal(frame('"☃"', 'content-length'), 'Content-Length: 5\r\n\r\n"☃"');
});

test('an unknown framing is refused', () => {
  assert.throws(() => new MessageReader('xml', () => {}), /unknown framing xml; use lines or content-length/);
});

for (const framing of ['lines', 'content-length']) {
  test(`${framing}: the writer gives the same bytes whether it holds a string or has spilled into a Buffer`, () => {
    const bodies = [];
    for (let i = 0; i < 3000; i++) bodies.push(`{"id":${i},"s":"${'naïve ☃ 😀'.repeat(i % 5)}"}`);
    const expected = Buffer.from(bodies.map((b) => frame(b, framing)).join(''));
    const writer = new MessageWriter(framing);
    assert.equal(writer.empty, true);
    writer.add(bodies[0]);
    assert.equal(writer.take(), frame(bodies[0], framing), 'a few messages stay a string');
    assert.equal(writer.empty, true);
    for (const b of bodies) writer.add(b);
    const taken = writer.take();
    assert.ok(Buffer.isBuffer(taken));
    assert.deepEqual(taken, expected);
    assert.equal(writer.empty, true);
    writer.add('{}');
    writer.clear();
    assert.equal(writer.take(), '');
  });
}
