#!/usr/bin/env node
// Calls per second through the client, beside floors measured in the same
// run, and beside redis when a redis-server is on PATH:
//
//   node clients/node/bench/compare.js [--binary PATH] [--sequential N] [--pipelined N]
//
// Floors: a bare loop writing a fixed request line to `cat` and reading it
// back (the cost of a round trip through two pipes and the event loop, with
// no server work at all), and the server's own pipelined rate when fed
// pre-encoded request bytes in one write (no client work at all). redis is
// spoken to over a Unix socket by a few lines of RESP below, as nothing can
// come from the npm registry. Prints a Markdown table.

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { parseArgs } from 'node:util';
import { findBinary, Larder } from '../index.js';

const { values: argv } = parseArgs({
  options: {
    binary: { type: 'string' },
    sequential: { type: 'string', default: '10000' },
    pipelined: { type: 'string', default: '50000' },
  },
});
const SEQUENTIAL = Number(argv.sequential);
const PIPELINED = Number(argv.pipelined);
const BINARY = findBinary(argv.binary);
const VALUE = { name: 'Ada', visits: 12, tags: ['a', 'b'] };
const VALUE_JSON = JSON.stringify(VALUE);

const key = (i) => `k${i % 1000}`;
const setLine = (id, k) => `{"jsonrpc":"2.0","id":${id},"method":"cache.set","params":{"key":"${k}","value":${VALUE_JSON}}}\n`;
const getLine = (id, k) => `{"jsonrpc":"2.0","id":${id},"method":"cache.get","params":{"key":"${k}"}}\n`;

/** Calls per second of `n` calls taking `ms`. */
const rate = (n, ms) => (n * 1000) / ms;

/** Counts LFs arriving on `stream`; `waitFor(total)` resolves once that many have come. */
function lineCounter(stream) {
  let lines = 0;
  let wanted = Infinity;
  let wake = () => {};
  stream.on('data', (chunk) => {
    for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) lines++;
    if (lines >= wanted) wake();
  });
  return (total) =>
    lines >= total
      ? Promise.resolve()
      : new Promise((resolve) => {
          wanted = total;
          wake = resolve;
        });
}

async function catFloor(n) {
  const cat = spawn('cat', [], { stdio: ['pipe', 'pipe', 'inherit'] });
  const waitFor = lineCounter(cat.stdout);
  const line = setLine(1, 'k');
  const warmUp = Math.min(n, 2000);
  for (let i = 1; i <= warmUp; i++) {
    cat.stdin.write(line);
    await waitFor(i);
  }
  const started = performance.now();
  for (let i = warmUp + 1; i <= warmUp + n; i++) {
    cat.stdin.write(line);
    await waitFor(i);
  }
  const ms = performance.now() - started;
  cat.stdin.end();
  return rate(n, ms);
}

/**
 * The server alone: `n` pre-encoded requests in one write, timed until the
 * last answer. Every key is first set and read once in the same process, as
 * the client's series do, so gets are warm memory-tier hits and sets
 * overwrite, exactly what the client is timed doing.
 */
async function serverFloor(n, encode) {
  const larder = spawn(BINARY, ['--memory'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const waitFor = lineCounter(larder.stdout);
  const warmUp = [];
  for (let i = 0; i < 2000; i++) warmUp.push(setLine(warmUp.length + 1, key(i)));
  for (let i = 0; i < 2000; i++) warmUp.push(getLine(warmUp.length + 1, key(i)));
  for (let i = 0; i < 2000; i++) warmUp.push(encode(warmUp.length + 1, key(i)));
  larder.stdin.write(warmUp.join(''));
  await waitFor(warmUp.length);
  const chunks = [];
  for (let i = 0; i < n; i++) chunks.push(encode(warmUp.length + i + 1, key(i)));
  const bytes = Buffer.from(chunks.join(''));
  const started = performance.now();
  larder.stdin.write(bytes);
  await waitFor(warmUp.length + n);
  const ms = performance.now() - started;
  larder.stdin.end();
  await new Promise((resolve) => larder.on('close', resolve));
  return rate(n, ms);
}

async function timed(n, run) {
  const started = performance.now();
  await run();
  return rate(n, performance.now() - started);
}

async function clientRates() {
  const db = await Larder.spawn({ memory: true, binary: BINARY });
  for (let i = 0; i < 2000; i++) await db.cache.set(key(i), VALUE);
  for (let i = 0; i < 2000; i++) await db.cache.get(key(i));
  const rates = {};
  rates.sequentialSet = await timed(SEQUENTIAL, async () => {
    for (let i = 0; i < SEQUENTIAL; i++) await db.cache.set(key(i), VALUE);
  });
  rates.sequentialGet = await timed(SEQUENTIAL, async () => {
    for (let i = 0; i < SEQUENTIAL; i++) await db.cache.get(key(i));
  });
  rates.pipelinedSet = await timed(PIPELINED, () => {
    const calls = [];
    for (let i = 0; i < PIPELINED; i++) calls.push(db.cache.set(key(i), VALUE));
    return Promise.all(calls);
  });
  rates.pipelinedGet = await timed(PIPELINED, () => {
    const calls = [];
    for (let i = 0; i < PIPELINED; i++) calls.push(db.cache.get(key(i)));
    return Promise.all(calls);
  });
  await db.close();
  return rates;
}

// MARK: - redis, over a Unix socket with a minimal RESP client

function onPath(name) {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

function resp(...args) {
  let out = `*${args.length}\r\n`;
  for (const a of args) out += `$${Buffer.byteLength(a)}\r\n${a}\r\n`;
  return out;
}

/** Counts complete RESP replies (simple strings, errors, integers, bulk strings) on a socket. */
function replyCounter(socket) {
  let buffered = Buffer.alloc(0);
  let replies = 0;
  let wanted = Infinity;
  let wake = () => {};
  socket.on('data', (chunk) => {
    buffered = buffered.length ? Buffer.concat([buffered, chunk]) : chunk;
    let at = 0;
    for (;;) {
      const end = buffered.indexOf('\r\n', at);
      if (end < 0) break;
      const type = buffered[at];
      if (type === 0x24 /* $ */) {
        const length = Number(buffered.toString('latin1', at + 1, end));
        const next = length < 0 ? end + 2 : end + 2 + length + 2;
        if (next > buffered.length) break;
        at = next;
      } else {
        at = end + 2;
      }
      replies++;
    }
    buffered = buffered.subarray(at);
    if (replies >= wanted) wake();
  });
  return (total) =>
    replies >= total
      ? Promise.resolve()
      : new Promise((resolve) => {
          wanted = total;
          wake = resolve;
        });
}

async function redisRates(server) {
  const dir = mkdtempSync(join(tmpdir(), 'larder-bench-redis-'));
  const socketPath = join(dir, 'redis.sock');
  const redis = spawn(server, ['--port', '0', '--unixsocket', socketPath, '--save', '', '--appendonly', 'no', '--dir', dir], {
    stdio: 'ignore',
  });
  try {
    for (let i = 0; i < 100 && !existsSync(socketPath); i++) await new Promise((r) => setTimeout(r, 50));
    const socket = createConnection(socketPath);
    await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    const waitFor = replyCounter(socket);
    let sent = 0;
    const roundTrip = async (command) => {
      socket.write(command);
      await waitFor(++sent);
    };
    const rates = {};
    rates.sequentialSet = await timed(SEQUENTIAL, async () => {
      for (let i = 0; i < SEQUENTIAL; i++) await roundTrip(resp('SET', key(i), VALUE_JSON));
    });
    rates.sequentialGet = await timed(SEQUENTIAL, async () => {
      for (let i = 0; i < SEQUENTIAL; i++) await roundTrip(resp('GET', key(i)));
    });
    for (const [name, command] of [['pipelinedSet', (i) => resp('SET', key(i), VALUE_JSON)], ['pipelinedGet', (i) => resp('GET', key(i))]]) {
      rates[name] = await timed(PIPELINED, async () => {
        const parts = [];
        for (let i = 0; i < PIPELINED; i++) parts.push(command(i));
        socket.write(parts.join(''));
        sent += PIPELINED;
        await waitFor(sent);
      });
    }
    socket.end();
    return rates;
  } finally {
    redis.kill();
    await new Promise((resolve) => redis.on('close', resolve));
    rmSync(dir, { recursive: true, force: true });
  }
}

// MARK: - The table

const format = (n) => Math.round(n).toLocaleString('en-US');
const ratio = (a, b) => (b ? `${(a / b).toFixed(2)}×` : '—');

const catRate = await catFloor(SEQUENTIAL);
const serverSet = await serverFloor(PIPELINED, setLine);
const serverGet = await serverFloor(PIPELINED, getLine);
const client = await clientRates();
const redisServer = onPath('redis-server');
const redis = redisServer ? await redisRates(redisServer) : undefined;

const rows = [
  ['sequential set', client.sequentialSet, catRate, redis?.sequentialSet],
  ['sequential get', client.sequentialGet, catRate, redis?.sequentialGet],
  ['pipelined set', client.pipelinedSet, serverSet, redis?.pipelinedSet],
  ['pipelined get', client.pipelinedGet, serverGet, redis?.pipelinedGet],
];
console.log(`Node ${process.version}, ${cpus().length} cores, ${BINARY}`);
console.log(`${SEQUENTIAL} sequential and ${PIPELINED} pipelined calls; floors: a round trip through cat (sequential),`);
console.log('the server fed pre-encoded bytes in one write (pipelined).\n');
console.log('| calls/s | client | floor | client/floor | redis | client/redis |');
console.log('|---|---:|---:|---:|---:|---:|');
for (const [name, c, floor, r] of rows) {
  console.log(`| ${name} | ${format(c)} | ${format(floor)} | ${ratio(c, floor)} | ${r ? format(r) : '—'} | ${r ? ratio(c, r) : '—'} |`);
}
if (!redisServer) console.log('\n(no redis-server on PATH: redis columns left empty)');
