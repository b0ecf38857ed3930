// The transcript replayer: its rules, its own fixtures, and every transcript
// in protocol/transcripts against the real binary.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { basename } from 'node:path';
import {
  parseTranscript, matchValue, matchMessage, matchString, replayTranscript, assertTranscript, transcriptFiles, TranscriptError,
} from '../transcript.js';

const PROTOCOL_DIR = fileURLToPath(new URL('../../../protocol/transcripts', import.meta.url));
const FIXTURES = fileURLToPath(new URL('./fixtures', import.meta.url));

describe('protocol/transcripts', () => {
  const files = transcriptFiles(PROTOCOL_DIR);
  if (files.length === 0) {
    test('replays every protocol transcript', (t) => t.skip(`no *.transcript files in ${PROTOCOL_DIR} yet`));
  }
  for (const file of files) {
    test(`replays ${basename(file)}`, async () => {
      await assertTranscript(file);
    });
  }
});

describe('own fixtures', () => {
  test('pass.transcript replays', async () => {
    const r = await assertTranscript(`${FIXTURES}/pass.transcript`);
    assert.ok(r.messages.length >= 8);
  });

  test('fail.transcript fails, at the line that is wrong', async () => {
    const r = await replayTranscript(`${FIXTURES}/fail.transcript`);
    assert.equal(r.ok, false);
    assert.ok(r.error instanceof TranscriptError);
    assert.equal(r.error.line, 7);
    assert.match(r.error.message, /fail\.transcript:7:/);
    assert.match(r.error.message, /\$\.result\.value: expected 2, got 1/);
  });
});

describe('parsing', () => {
  test('headers before the first -->, comments, blank lines', () => {
    const t = parseTranscript(
      [
        '// a comment',
        '// args: --memory  --clock 2026-01-01T00:00:00Z',
        '// args: --enable-test-methods',
        '// framing: content-length',
        '// exit-code: 1',
        '',
        '--> not json at all',
        '<-- {"a": [1, 2]}',
        '// args: --ignored-after-the-first-send',
        '// exit-code: 7',
        '<-- (none)',
        '-->{"jsonrpc":"2.0","id":1,"method":"m"}\r',
      ].join('\n'),
    );
    assert.deepEqual(t.args, ['--memory', '--clock', '2026-01-01T00:00:00Z', '--enable-test-methods']);
    assert.equal(t.framing, 'content-length');
    assert.equal(t.exitCode, 1);
    assert.deepEqual(t.steps.map((s) => s.kind), ['send', 'expect', 'none', 'send']);
    assert.equal(t.steps[0].text, 'not json at all');
    assert.deepEqual(t.steps[1].json, { a: [1, 2] });
    assert.equal(t.steps[1].line, 8);
    assert.equal(t.steps[3].text, '{"jsonrpc":"2.0","id":1,"method":"m"}');
  });

  test('malformed transcripts are refused with their line', () => {
    assert.throws(() => parseTranscript('--> x\nwhat is this', 'f'), (e) => e instanceof TranscriptError && e.line === 2);
    assert.throws(() => parseTranscript('--> x\n<-- {not json', 'f'), /f:2: expected message is not JSON/);
    assert.throws(() => parseTranscript('// exit-code: one\n', 'f'), /exit-code must be an integer/);
    assert.throws(() => parseTranscript('--> x\n<-- (none)\n<-- {}', 'f'), /f:2: \(none\) must be followed by a -->/);
  });
});

describe('matching', () => {
  test('objects ignore member order but need the same members', () => {
    assert.equal(matchValue({ a: 1, b: 2 }, { b: 2, a: 1 }), null);
    assert.match(matchValue({ a: 1 }, { a: 1, b: 2 }), /unexpected member "b"/);
    assert.match(matchValue({ a: 1, b: 2 }, { a: 1 }), /missing member "b"/);
    assert.match(matchValue({ a: { b: [1, { c: 2 }] } }, { a: { b: [1, { c: 3 }] } }), /^\$\.a\.b\[1\]\.c: expected 2, got 3/);
  });

  test('numbers by value, other scalars exactly, types must agree', () => {
    assert.equal(matchMessage(JSON.parse('{"n":1.0,"e":1e2}'), { n: 1, e: 100 }), null);
    assert.match(matchValue(1, '1'), /expected number/);
    assert.match(matchValue(null, false), /expected null/);
    assert.match(matchValue(true, false), /expected true/);
    assert.match(matchValue({}, []), /expected object/);
    assert.equal(matchValue(null, null), null);
  });

  test('[..] in a string matches any run of characters', () => {
    assert.ok(matchString('Invalid params: [..]', 'Invalid params: params.key must not be empty'));
    assert.ok(matchString('Invalid params: [..]', 'Invalid params: '));
    assert.ok(matchString('[..]middle[..]', 'a\nmiddle\nb'));
    assert.ok(matchString('a.b*(c)[..]', 'a.b*(c)'));
    assert.ok(!matchString('a.b[..]', 'axb'));
    assert.ok(!matchString('Parse error: [..]', 'Internal error: x'));
    assert.ok(!matchString('[..]', 5));
    assert.match(matchValue('x[..]', 5), /expected string/);
  });

  test('"{...}" matches any value at all, but the member must be there', () => {
    for (const v of [null, 1, 'x', [1], { a: 1 }, false]) assert.equal(matchValue({ t: '{...}' }, { t: v }), null);
    assert.match(matchValue({ t: '{...}' }, {}), /missing member "t"/);
  });

  test('a top-level array is a multiset; nested arrays keep their order', () => {
    assert.equal(matchMessage([{ id: 1 }, { id: 2 }], [{ id: 2 }, { id: 1 }]), null);
    assert.match(matchMessage([{ id: 1 }, { id: 1 }], [{ id: 1 }, { id: 2 }]), /matches no remaining answer/);
    assert.match(matchMessage([{ id: 1 }], [{ id: 1 }, { id: 2 }]), /expected 1 elements, got 2/);
    // A wildcard element must not steal the only answer another element fits.
    assert.equal(matchMessage([{ id: '{...}' }, { id: 1 }], [{ id: 1 }, { id: 2 }]), null);
    assert.equal(matchMessage([{ id: 1 }, '{...}'], [{ id: 1 }, { id: 2 }]), null);
    assert.match(matchMessage({ a: [1, 2] }, { a: [2, 1] }), /\$\.a\[0\]: expected 1, got 2/);
  });
});

describe('replaying', () => {
  const replay = (text, options) => replayTranscript({ text, file: 'inline' }, options);

  test('content-length framing', async () => {
    const r = await replay(
      [
        '// framing: content-length',
        '// args: --memory',
        '--> {"jsonrpc":"2.0","id":1,"method":"cache.set","params":{"key":"ü","value":"☃"}}',
        '<-- {"jsonrpc":"2.0","id":1,"result":{"stored":true,"size":5}}',
        '--> {"jsonrpc":"2.0","id":2,"method":"cache.get","params":{"key":"ü"}}',
        '<-- {"jsonrpc":"2.0","id":2,"result":{"found":true,"value":"☃","expired":false,"storedAt":"{...}","tier":"memory"}}',
      ].join('\n'),
    );
    assert.ok(r.ok, r.error?.message);
  });

  test('the store is a fresh temporary directory unless args name one', async () => {
    const r = await replay(
      [
        '--> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}',
        '<-- {"jsonrpc":"2.0","id":1,"result":{"serverInfo":"{...}","protocolVersion":"{...}","capabilities":"{...}","store":{"path":"[..]larder-transcript-[..]","persistent":true}}}',
        '--> {"jsonrpc":"2.0","id":2,"method":"cache.list"}',
        '<-- {"jsonrpc":"2.0","id":2,"result":{"caches":[]}}',
      ].join('\n'),
    );
    assert.ok(r.ok, r.error?.message);
  });

  test('exit-code: exit without shutdown ends with 1', async () => {
    const text = ['// args: --memory', '// exit-code: 1', '--> {"jsonrpc":"2.0","method":"exit"}'].join('\n');
    assert.ok((await replay(text)).ok);
    const wrong = await replay(text.replace('// exit-code: 1', ''));
    assert.equal(wrong.ok, false);
    assert.match(wrong.error.message, /exited with code 1, expected 0/);
  });

  test('(none) passes when the next answer is the probe request\'s', async () => {
    const r = await replay(
      [
        '// args: --memory',
        '--> {"jsonrpc":"2.0","method":"initialized"}',
        '--> {"jsonrpc":"2.0","method":"no.such.notification"}',
        '<-- (none)',
        '--> {"jsonrpc":"2.0","id":"probe","method":"cache.list"}',
        '<-- {"jsonrpc":"2.0","id":"probe","result":{"caches":[]}}',
      ].join('\n'),
    );
    assert.ok(r.ok, r.error?.message);
  });

  test('(none) fails when something arrives first', async () => {
    const r = await replay(
      [
        '// args: --memory',
        '--> {"jsonrpc":"2.0","id":1,"method":"cache.subscribe"}',
        '<-- {"jsonrpc":"2.0","id":1,"result":{"subscribed":"*"}}',
        '--> {"jsonrpc":"2.0","id":2,"method":"cache.set","params":{"key":"a","value":1}}',
        '<-- {"jsonrpc":"2.0","id":2,"result":"{...}"}',
        '<-- (none)',
        '--> {"jsonrpc":"2.0","id":3,"method":"cache.clear"}',
        '<-- {"jsonrpc":"2.0","id":3,"result":{"removed":1}}',
      ].join('\n'),
    );
    assert.equal(r.ok, false);
    assert.equal(r.error.line, 6);
    assert.match(r.error.message, /expected nothing before the answer to line 7, got .*cache\.cleared/);
  });

  test('a message after the last line fails', async () => {
    const r = await replay(['// args: --memory', '--> {"jsonrpc":"2.0","id":1,"method":"cache.list"}'].join('\n'));
    assert.equal(r.ok, false);
    assert.match(r.error.message, /after the last line the server sent .*"id":1/);
  });

  test('a message that never comes fails after the timeout', async () => {
    const r = await replay(['// args: --memory', '--> {"jsonrpc":"2.0","method":"initialized"}', '<-- {"jsonrpc":"2.0","id":1,"result":null}'].join('\n'), {
      timeout: 300,
    });
    assert.equal(r.ok, false);
    assert.match(r.error.message, /inline:3: .*nothing arrived within 300 ms/);
  });

  test('a server that cannot start fails with its stderr', async () => {
    const r = await replay(['// args: --store /proc/larder-cannot-be-here', '--> {"jsonrpc":"2.0","id":1,"method":"cache.list"}', '<-- {"jsonrpc":"2.0","id":1,"result":"{...}"}'].join('\n'));
    assert.equal(r.ok, false);
    assert.match(r.error.message, /exited \(code 2\)/);
    assert.match(r.stderr, /cannot open the store/);
  });
});
