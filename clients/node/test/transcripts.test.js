// Every protocol transcript, driven through this client's own transport.
//
// For each transcript the server runs with `--record FILE` while the
// transport sends the transcript's `-->` messages (each once the answers
// listed before it have arrived, so consecutive ones leave in one write).
// Then:
// - the recording's `-->` lines are the transcript's: the server received
//   exactly the bytes the transport framed;
// - the messages the transport read are the recording's `<--` lines: it
//   decoded exactly what the server wrote;
// - the server exited with the transcript's exit code;
// - `larder replay` (the one replayer, and its matcher) passes both the
//   recording and the recording's messages against the transcript's own
//   expectations.
import { describe, test, prerequisite } from './support.js';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findBinary, Transport } from '../index.js';

const PROTOCOL_DIR = fileURLToPath(new URL('../../../protocol/transcripts', import.meta.url));
const TIMEOUT_MS = 10_000;

const files = existsSync(PROTOCOL_DIR)
  ? readdirSync(PROTOCOL_DIR).filter((f) => f.endsWith('.transcript')).sort().map((f) => join(PROTOCOL_DIR, f))
  : [];
const noTranscripts = prerequisite(files.length === 0 && `no *.transcript files in ${PROTOCOL_DIR}`);

/**
 * What a session needs from a transcript (format: protocol/transcripts/README.md):
 * its header settings and its lines in order. Matching is left to `larder replay`.
 */
function readTranscript(text) {
  const transcript = { args: [], framing: 'lines', exitCode: 0, header: [], steps: [], severalServers: false };
  for (const raw of text.split('\n')) {
    const line = (raw.endsWith('\r') ? raw.slice(0, -1) : raw).replace(/^[ \t]+/, '');
    const body = line.slice(3).replace(/^ +/, '');
    if (/^[A-Z](-->|<--)/.test(line)) transcript.severalServers = true;
    else if (line.startsWith('-->')) transcript.steps.push({ kind: 'send', text: body });
    else if (line.startsWith('<--')) transcript.steps.push({ kind: body === '(none)' ? 'none' : 'expect', text: body });
    else if (transcript.steps.length === 0 && line.startsWith('//')) {
      const [, name, value] = /^\/\/ *(args|framing|exit-code):(.*)$/.exec(line) ?? [];
      if (name === 'args') transcript.args.push(...value.split(' ').filter(Boolean));
      if (name === 'framing') transcript.framing = value.trim();
      if (name === 'exit-code') transcript.exitCode = Number(value.trim());
      if (name) transcript.header.push(line);
    }
  }
  return transcript;
}

/** Resolves once `ready()` holds, rejects after TIMEOUT_MS naming `what`. */
function until(ready, subscribe, what) {
  if (ready()) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not arrive within ${TIMEOUT_MS} ms`)), TIMEOUT_MS);
    subscribe(() => {
      if (!ready()) return;
      clearTimeout(timer);
      resolve();
    });
  });
}

/** Runs the transcript's session through a Transport, the server recording it. */
async function drive(transcript, dir) {
  const record = join(dir, 'session.transcript');
  const args = [...transcript.args];
  if (!args.includes('--memory') && !args.includes('--store')) args.push('--store', join(dir, 'store'));
  args.push('--record', record);
  const received = [];
  let arrived = () => {};
  const transport = Transport.spawn(findBinary(), args, {
    framing: transcript.framing,
    onMessage: (text) => {
      received.push(text);
      arrived();
    },
  });
  const subscribe = (fn) => (arrived = fn);
  let expected = 0;
  for (const step of transcript.steps) {
    if (step.kind === 'send') {
      await until(() => received.length >= expected, subscribe, `answer ${expected}`);
      transport.send(step.text);
    } else if (step.kind === 'expect') {
      expected++;
    }
  }
  await until(() => received.length >= expected, subscribe, `answer ${expected}`);
  transport.end();
  const timer = setTimeout(() => transport.kill(), TIMEOUT_MS);
  const status = await transport.done;
  clearTimeout(timer);
  return { record, received, status, stderr: transport.stderr };
}

/**
 * Whether `actual` is what the recorder wrote as `recorded`: equal, except
 * where the recorder wrote a value another run cannot reproduce as `"{...}"`
 * (the server's version, the store path) or a time as `"20[..]Z"`.
 */
function sameAsRecorded(recorded, actual) {
  if (recorded === '{...}') return true;
  if (recorded === '20[..]Z') return typeof actual === 'string' && /^20.*Z$/.test(actual);
  if (Array.isArray(recorded)) {
    return Array.isArray(actual) && recorded.length === actual.length && recorded.every((r, i) => sameAsRecorded(r, actual[i]));
  }
  if (recorded !== null && typeof recorded === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return false;
    const keys = Object.keys(recorded);
    return keys.length === Object.keys(actual).length && keys.every((k) => k in actual && sameAsRecorded(recorded[k], actual[k]));
  }
  return Object.is(recorded, actual) || recorded === actual;
}

function replay(paths) {
  return new Promise((resolve) => {
    execFile(findBinary(), ['replay', ...paths], { timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? err.code ?? 1 : 0, output: stdout + stderr }),
    );
  });
}

describe('protocol transcripts through the client transport', () => {
  if (noTranscripts) test('every protocol transcript', { skip: noTranscripts }, () => {});
  for (const file of files) {
    test(basename(file), async () => {
      const transcript = readTranscript(readFileSync(file, 'utf8'));
      if (transcript.severalServers) {
        // Several servers on one store: a client drives one, so larder replay plays it alone.
        const { code, output } = await replay([file]);
        assert.equal(code, 0, output);
        return;
      }
      const dir = mkdtempSync(join(tmpdir(), 'larder-node-transcript-'));
      try {
        const { record, received, status, stderr } = await drive(transcript, dir);
        assert.equal(status.exitCode, transcript.exitCode, `exit code; stderr:\n${stderr}`);

        const recording = readTranscript(readFileSync(record, 'utf8'));
        // A session holding an encryption key is recorded with its secrets
        // redacted (SPEC 6.10): its requests are not written as sent, so the
        // recording replays on its own and is not held to the transcript.
        const redacted = readFileSync(record, 'utf8').includes('"[redacted]"');
        const sent = transcript.steps.filter((s) => s.kind === 'send').map((s) => s.text);
        const recordedTexts = recording.steps.filter((s) => s.kind === 'send').map((s) => s.text);
        if (redacted) assert.equal(recordedTexts.length, sent.length, 'the server received every message the transport sent');
        else assert.deepEqual(recordedTexts, sent, 'the server received each message as the transport sent it');
        const written = recording.steps.filter((s) => s.kind === 'expect').map((s) => s.text);
        assert.equal(received.length, written.length, 'the transport read as many messages as the server wrote');
        received.forEach((text, i) => {
          assert.ok(sameAsRecorded(JSON.parse(written[i]), JSON.parse(text)),
            `message ${i + 1} as read:\n  ${text}\nas the server wrote it:\n  ${written[i]}`);
        });

        // The recording's messages against the transcript's expectations, by larder replay's matcher.
        const recordedSends = recording.steps.filter((s) => s.kind === 'send');
        let next = 0;
        const checked = [...transcript.header, ...transcript.steps.map((s) =>
          s.kind === 'send' ? `--> ${recordedSends[next++].text}` : `<-- ${s.text}`)];
        const check = join(dir, 'expected.transcript');
        writeFileSync(check, checked.join('\n') + '\n');
        // The recorder does not know how the session will end: give its replay the transcript's exit code.
        const recorded = join(dir, 'recorded.transcript');
        writeFileSync(recorded, `// exit-code: ${transcript.exitCode}\n` + readFileSync(record, 'utf8'));
        const { code, output } = await replay(redacted ? [recorded] : [recorded, check]);
        assert.equal(code, 0, output);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
