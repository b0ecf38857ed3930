// Replays protocol transcripts (protocol/transcripts/README.md) against a
// real `larder`: each file is one session with a fresh server.
//
//   node transcript.js [--binary PATH] [--timeout MS] FILE_OR_DIR...

import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { frame, MessageReader } from './framing.js';
import { findBinary } from './index.js';
import { checkOptions } from './options.js';

/** A transcript that cannot be read, or a session that did not go as written. */
export class TranscriptError extends Error {
  constructor(message, { file, line } = {}) {
    super(file ? `${file}${line ? `:${line}` : ''}: ${message}` : message);
    this.name = 'TranscriptError';
    this.file = file;
    this.line = line;
  }
}

// MARK: - Parsing

/**
 * Parses transcript text into `{args, framing, exitCode, steps}`; steps are
 * `{kind: 'send', text, line}`, `{kind: 'expect', json, text, line}` and
 * `{kind: 'none', line}`.
 */
export function parseTranscript(text, file = '<transcript>') {
  const t = { file, args: [], framing: 'lines', exitCode: 0, steps: [] };
  let started = false;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].endsWith('\r') ? lines[i].slice(0, -1) : lines[i];
    const n = i + 1;
    const fail = (why) => {
      throw new TranscriptError(why, { file, line: n });
    };
    if (line.trim() === '') continue;
    if (line.startsWith('//')) {
      if (started) continue;
      const m = /^\/\/\s*(args|framing|exit-code):(.*)$/.exec(line);
      if (!m) continue;
      const value = m[2].trim();
      if (m[1] === 'args') t.args.push(...value.split(' ').filter((a) => a !== ''));
      else if (m[1] === 'framing') {
        if (value !== 'content-length' && value !== 'lines') fail(`unknown framing "${value}"`);
        t.framing = value;
      } else {
        if (!/^-?\d+$/.test(value)) fail(`exit-code must be an integer, not "${value}"`);
        t.exitCode = Number(value);
      }
      continue;
    }
    if (line.startsWith('-->')) {
      started = true;
      t.steps.push({ kind: 'send', text: line.slice(3).replace(/^ /, ''), line: n });
      continue;
    }
    if (line.startsWith('<--')) {
      const body = line.slice(3).trim();
      if (body === '(none)') {
        t.steps.push({ kind: 'none', line: n });
        continue;
      }
      let json;
      try {
        json = JSON.parse(body);
      } catch (err) {
        fail(`expected message is not JSON: ${err.message}`);
      }
      t.steps.push({ kind: 'expect', json, text: body, line: n });
      continue;
    }
    fail(`a line must start with -->, <-- or //: ${JSON.stringify(line.slice(0, 80))}`);
  }
  for (let k = 0; k < t.steps.length; k++) {
    if (t.steps[k].kind === 'none' && t.steps[k + 1]?.kind !== 'send') {
      throw new TranscriptError('(none) must be followed by a --> line (the request whose response ends the silence)', {
        file,
        line: t.steps[k].line,
      });
    }
  }
  return t;
}

// MARK: - Matching

function kind(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

function describe(v) {
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 120 ? s.slice(0, 117) + '...' : s;
}

const patterns = new Map();

/** Whether an expected string (with `[..]` wildcards) matches `actual`. */
export function matchString(expected, actual) {
  if (typeof actual !== 'string') return false;
  if (!expected.includes('[..]')) return expected === actual;
  let re = patterns.get(expected);
  if (!re) {
    const source = expected
      .split('[..]')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('[\\s\\S]*');
    re = new RegExp(`^${source}$`);
    patterns.set(expected, re);
  }
  return re.test(actual);
}

/**
 * Compares an expected value (from a `<--` line) with an actual one. Returns
 * null when they match, else a description of the first difference with its
 * path. `batch: true` compares top-level arrays as multisets.
 */
export function matchValue(expected, actual, { batch = false } = {}, path = '$') {
  if (expected === '{...}') return null;
  const ek = kind(expected);
  const ak = kind(actual);
  if (ek !== ak) return `${path}: expected ${ek} ${describe(expected)}, got ${ak} ${describe(actual)}`;
  switch (ek) {
    case 'string':
      return matchString(expected, actual) ? null : `${path}: expected ${describe(expected)}, got ${describe(actual)}`;
    case 'number':
    case 'boolean':
    case 'null':
      return expected === actual ? null : `${path}: expected ${describe(expected)}, got ${describe(actual)}`;
    case 'object': {
      const ekeys = Object.keys(expected);
      const akeys = Object.keys(actual);
      const missing = ekeys.filter((k) => !Object.hasOwn(actual, k));
      const extra = akeys.filter((k) => !Object.hasOwn(expected, k));
      if (missing.length) return `${path}: missing member ${missing.map((k) => JSON.stringify(k)).join(', ')} in ${describe(actual)}`;
      if (extra.length) return `${path}: unexpected member ${extra.map((k) => JSON.stringify(k)).join(', ')} in ${describe(actual)}`;
      for (const k of ekeys) {
        const d = matchValue(expected[k], actual[k], {}, `${path}.${k}`);
        if (d) return d;
      }
      return null;
    }
    case 'array': {
      if (expected.length !== actual.length) {
        return `${path}: expected ${expected.length} elements, got ${actual.length}: ${describe(actual)}`;
      }
      if (batch) return matchMultiset(expected, actual, path);
      for (let i = 0; i < expected.length; i++) {
        const d = matchValue(expected[i], actual[i], {}, `${path}[${i}]`);
        if (d) return d;
      }
      return null;
    }
    default:
      return `${path}: cannot compare ${ek}`;
  }
}

/** Arrays as multisets: a perfect matching between expected and actual elements (Kuhn's algorithm). */
function matchMultiset(expected, actual, path) {
  const fits = expected.map((e) => actual.map((a) => matchValue(e, a) === null));
  const owner = new Array(actual.length).fill(-1);
  const augment = (i, seen) => {
    for (let j = 0; j < actual.length; j++) {
      if (!fits[i][j] || seen[j]) continue;
      seen[j] = true;
      if (owner[j] < 0 || augment(owner[j], seen)) {
        owner[j] = i;
        return true;
      }
    }
    return false;
  };
  for (let i = 0; i < expected.length; i++) {
    if (!augment(i, new Array(actual.length).fill(false))) {
      return `${path}: batch element ${describe(expected[i])} matches no remaining answer in ${describe(actual)}`;
    }
  }
  return null;
}

/** Compares a whole message: a top-level array (a batch answer) is a multiset. */
export function matchMessage(expected, actual) {
  return matchValue(expected, actual, { batch: Array.isArray(expected) });
}

// MARK: - Replaying

/** The id of the request in a `-->` line's text, for `(none)`: null when it has none readable. */
function requestId(text) {
  try {
    const m = JSON.parse(text);
    if (m && typeof m === 'object' && !Array.isArray(m) && 'id' in m) return { id: m.id, batch: false };
    if (Array.isArray(m)) return { id: undefined, batch: true };
  } catch {
    // a parse error is answered with id null
  }
  return { id: null, batch: false };
}

/**
 * Replays one transcript (a path, or `{text, file}`). Resolves with
 * `{file, ok: true, messages}` or `{file, ok: false, error, stderr}`; never
 * rejects for a failed session.
 *
 * Options: `binary` (default as `Larder.spawn`), `timeout` (ms to wait for
 * each expected message and for the exit, default 10000), `env`; any other
 * throws a TypeError.
 */
export async function replayTranscript(source, options) {
  const { binary, timeout = 10000, env } = checkOptions('replayTranscript', options, ['binary', 'timeout', 'env']);
  const file = typeof source === 'string' ? source : source.file ?? '<transcript>';
  let t;
  try {
    const text = typeof source === 'string' ? readFileSync(source, 'utf8') : source.text;
    t = parseTranscript(text, file);
  } catch (err) {
    return { file, ok: false, error: err instanceof TranscriptError ? err : new TranscriptError(err.message, { file }), stderr: '' };
  }
  const args = [...t.args];
  let tempStore;
  if (!args.includes('--memory') && !args.includes('--store')) {
    tempStore = mkdtempSync(join(tmpdir(), 'larder-transcript-'));
    args.push('--store', tempStore);
  }
  const session = new Session(findBinary(binary), args, t, { timeout, env });
  try {
    const messages = await session.run();
    return { file, ok: true, messages };
  } catch (err) {
    session.kill();
    await session.exited;
    return { file, ok: false, error: err, stderr: session.stderr };
  } finally {
    if (tempStore) rmSync(tempStore, { recursive: true, force: true });
  }
}

/** Like `replayTranscript`, but throws the TranscriptError (with the stderr tail) when the session fails. */
export async function assertTranscript(source, options) {
  const r = await replayTranscript(source, options);
  if (!r.ok) {
    const tail = r.stderr?.trim();
    if (tail) r.error.message += `\nlarder stderr:\n${tail.split('\n').slice(-20).join('\n')}`;
    throw r.error;
  }
  return r;
}

/** The `*.transcript` files in a directory, sorted; [] when it does not exist. */
export function transcriptFiles(dir) {
  let names;
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.filter((n) => n.endsWith('.transcript')).sort().map((n) => join(dir, n));
}

class Session {
  #t;
  #timeout;
  #child;
  #queue = []; // received messages not yet matched: {text, json}
  #waiter = null;
  #exit = null;
  #sendBuffer = [];
  stderr = '';
  exited;

  constructor(binary, args, t, { timeout, env }) {
    this.#t = t;
    this.#timeout = timeout;
    this.#child = spawn(binary, args, { stdio: ['pipe', 'pipe', 'pipe'], env: env ?? process.env });
    this.exited = new Promise((resolve) => {
      this.#child.on('error', (err) => {
        this.#exit ??= { code: null, signal: null, error: err };
        resolve(this.#exit);
        this.#wake();
      });
      this.#child.on('close', (code, signal) => {
        this.#exit ??= { code, signal };
        resolve(this.#exit);
        this.#wake();
      });
    });
    const reader = new MessageReader(t.framing, (text) => {
      this.#queue.push({ text });
      this.#wake();
    }, (err) => {
      this.#queue.push({ text: null, error: err });
      this.#wake();
    });
    this.#child.stdout.on('data', (c) => reader.push(c));
    this.#child.stdout.on('end', () => {
      const left = reader.end();
      if (left) this.#queue.push({ text: null, error: new Error(`the output ended inside a frame (${left} bytes left)`) });
      this.#wake();
    });
    this.#child.stderr.on('data', (c) => {
      this.stderr = (this.stderr + c.toString('utf8')).slice(-16384);
    });
    this.#child.stdin.on('error', () => {});
  }

  kill() {
    if (!this.#exit) this.#child.kill('SIGKILL');
  }

  #wake() {
    const w = this.#waiter;
    this.#waiter = null;
    w?.();
  }

  #fail(message, line) {
    throw new TranscriptError(message, { file: this.#t.file, line });
  }

  #flushSends() {
    if (this.#sendBuffer.length === 0) return;
    const chunk = this.#sendBuffer.join('');
    this.#sendBuffer = [];
    if (!this.#exit && this.#child.stdin.writable) this.#child.stdin.write(chunk);
  }

  /** The next message from the server, parsed; fails on timeout or exit. */
  async #next(line, what) {
    const deadline = Date.now() + this.#timeout;
    for (;;) {
      const m = this.#queue.shift();
      if (m) {
        if (m.error) this.#fail(`${what}, but the framing broke: ${m.error.message}`, line);
        try {
          return { text: m.text, json: JSON.parse(m.text) };
        } catch {
          this.#fail(`${what}, but the server sent something that is not JSON: ${m.text.slice(0, 200)}`, line);
        }
      }
      if (this.#exit) {
        const how = this.#exit.error
          ? `could not be started (${this.#exit.error.message})`
          : `exited (code ${this.#exit.code}${this.#exit.signal ? `, signal ${this.#exit.signal}` : ''})`;
        this.#fail(`${what}, but the server ${how}`, line);
      }
      const left = deadline - Date.now();
      if (left <= 0) this.#fail(`${what}, but nothing arrived within ${this.#timeout} ms`, line);
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  async run() {
    const received = [];
    const steps = this.#t.steps;
    let silence = null; // a pending (none): {line}
    for (let k = 0; k < steps.length; k++) {
      const step = steps[k];
      if (step.kind === 'send') {
        // Consecutive --> lines go out in one write, as a pipelining client sends them.
        this.#sendBuffer.push(frame(step.text, this.#t.framing));
        if (silence) {
          this.#flushSends();
          const probe = requestId(step.text);
          const got = await this.#next(silence.line, `expected nothing before the answer to line ${step.line}`);
          this.#queue.unshift({ text: got.text });
          const isAnswer = probe.batch
            ? Array.isArray(got.json)
            : got.json !== null && typeof got.json === 'object' && !Array.isArray(got.json) &&
              !('method' in got.json) && got.json.id === probe.id;
          if (!isAnswer) this.#fail(`expected nothing before the answer to line ${step.line}, got ${got.text}`, silence.line);
          silence = null;
        }
        continue;
      }
      this.#flushSends();
      if (step.kind === 'none') {
        silence = step;
        continue;
      }
      const got = await this.#next(step.line, `expected ${step.text}`);
      received.push(got.json);
      const diff = matchMessage(step.json, got.json);
      if (diff) this.#fail(`expected ${step.text}\n  got      ${got.text}\n  ${diff}`, step.line);
    }
    this.#flushSends();
    // After the last line: close the input; the server must exit with the
    // expected code and say nothing more.
    this.#child.stdin.end();
    const lastLine = steps.at(-1)?.line;
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), this.#timeout);
    const exit = await this.exited;
    clearTimeout(timer);
    await new Promise((r) => setImmediate(r));
    if (this.#queue.length) {
      const m = this.#queue[0];
      this.#fail(`after the last line the server sent ${m.text ?? m.error.message}`, lastLine);
    }
    if (exit.error) this.#fail(`the server could not be started: ${exit.error.message}`);
    if (exit.signal) this.#fail(`the server did not exit within ${this.#timeout} ms of its input closing (killed by ${exit.signal})`, lastLine);
    if (exit.code !== this.#t.exitCode) this.#fail(`the server exited with code ${exit.code}, expected ${this.#t.exitCode}`, lastLine);
    return received;
  }
}

// MARK: - Command line

async function main(argv) {
  const paths = [];
  const options = {};
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--binary') options.binary = argv[++i];
    else if (argv[i] === '--timeout') options.timeout = Number(argv[++i]);
    else paths.push(argv[i]);
  }
  if (paths.length === 0) {
    paths.push(fileURLToPath(new URL('../../protocol/transcripts', import.meta.url)));
  }
  const files = paths.flatMap((p) => (statSync(p).isDirectory() ? transcriptFiles(p) : [resolve(p)]));
  let failed = 0;
  for (const f of files) {
    const r = await replayTranscript(f, options);
    if (r.ok) console.log(`ok    ${basename(f)}`);
    else {
      failed++;
      console.log(`FAIL  ${r.error.message}`);
      if (r.stderr?.trim()) console.log(`      stderr: ${r.stderr.trim().split('\n').slice(-5).join('\n      ')}`);
    }
  }
  console.log(`${files.length - failed} passed, ${failed} failed`);
  return failed ? 1 : 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
