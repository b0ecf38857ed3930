// Four processes at once, each with a sidecar of its own on one store,
// updating one key: by counter, or by read, conditional write and retry; or
// moving money between accounts in transactions.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { Larder, findBinary } from '../index.js';

export const INCR_WORKER = `
const [index, store, rounds, pgSchema] = process.argv.slice(1); // -e: no script path
const { Larder } = await import(index);
const db = await Larder.spawn({ store, pgSchema: pgSchema || undefined });
for (let i = 0; i < Number(rounds); i++) await db.cache.increment('counter');
await db.close();
`;

export const CAS_WORKER = `
const [index, store, rounds, pgSchema] = process.argv.slice(1); // -e: no script path
const { Larder, ConditionFailed } = await import(index);
const db = await Larder.spawn({ store, pgSchema: pgSchema || undefined });
for (let i = 0; i < Number(rounds); i++) {
  for (;;) {
    const entry = await db.cache.get('counter');
    try {
      if (entry.found) await db.cache.set('counter', entry.value + 1, { ifRevision: entry.revision });
      else await db.cache.set('counter', 1, { ifAbsent: true });
      break;
    } catch (err) {
      if (!(err instanceof ConditionFailed)) throw err;
    }
  }
}
await db.close();
`;

export const BANK_WORKER = `
const [index, store, rounds, pgSchema, accounts] = process.argv.slice(1); // -e: no script path
const { Larder } = await import(index);
const names = accounts.split(',');
const db = await Larder.spawn({ store, pgSchema: pgSchema || undefined });
let moved = 0;
let retried = 0;
for (let i = 0; i < Number(rounds); i++) {
  const from = names[Math.floor(Math.random() * names.length)];
  const others = names.filter((name) => name !== from);
  const to = others[Math.floor(Math.random() * others.length)];
  const amount = 1 + Math.floor(Math.random() * 60);
  let read = (await db.transaction({ cache: 'bank' }).get(from).get(to).commit()).results;
  while (read[0].value >= amount) { // no overdraft: declined when the money is not there
    const txn = db.transaction({ cache: 'bank' })
      .ifRevision(from, read[0].revision).ifRevision(to, read[1].revision)
      .set(from, read[0].value - amount).set(to, read[1].value + amount)
      .increment('transfers');
    txn.else.get(from).get(to); // what a retry starts from
    const result = await txn.commit();
    if (result.succeeded) {
      moved++;
      break;
    }
    retried++;
    read = result.results;
  }
}
await db.close();
process.stdout.write(moved + ' ' + retried);
`;

/** Runs `worker` with `args` in four processes at once; answers what each printed. */
async function runFour(worker, args) {
  const index = new URL('../index.js', import.meta.url).href;
  const env = { ...process.env, LARDER_BIN: findBinary() };
  const runs = Array.from({ length: 4 }, () => new Promise((resolve) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', worker, index, ...args],
      { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => { stdout += chunk; });
    child.stderr.on('data', (chunk) => { stderr += chunk; });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  }));
  const done = await Promise.all(runs);
  for (const { code, stderr } of done) assert.equal(code, 0, stderr);
  return done.map(({ stdout }) => stdout);
}

/**
 * Runs `worker` in four processes at once, each with its own sidecar on
 * `store` (a directory, or a PostgreSQL URL with `pgSchema`); answers the
 * counter they left.
 */
export async function fourProcesses(worker, store, rounds, pgSchema = '') {
  await runFour(worker, [store, String(rounds), pgSchema]);
  const check = await Larder.spawn({ store, pgSchema: pgSchema || undefined });
  try {
    return (await check.cache.get('counter')).value;
  } finally {
    await check.close();
  }
}

/** The accounts of the bank-transfer test and the money each opens with. */
export const ACCOUNTS = ['account:0', 'account:1', 'account:2', 'account:3', 'account:4'];
export const OPENING = 100;

/**
 * Opens the accounts on `store`, has four processes, each with its own
 * sidecar, make `rounds` random transfers each; answers how many they saw
 * succeed (`moved`) and retry (`retried`), the transfers counted in the
 * store (`counted`) and the balances (`money`).
 */
export async function bankTransfers(store, rounds, pgSchema = '') {
  const open = await Larder.spawn({ store, pgSchema: pgSchema || undefined });
  try {
    await open.cache.setMany(Object.fromEntries(ACCOUNTS.map((name) => [name, OPENING])), { cache: 'bank' });
  } finally {
    await open.close();
  }
  const printed = await runFour(BANK_WORKER, [store, String(rounds), pgSchema, ACCOUNTS.join(',')]);
  const check = await Larder.spawn({ store, pgSchema: pgSchema || undefined });
  try {
    const read = check.transaction({ cache: 'bank' }).get('transfers');
    for (const name of ACCOUNTS) read.get(name);
    const [counted, ...balances] = (await read.commit()).results;
    const [moved, retried] = [0, 1].map((i) => printed.reduce((sum, out) => sum + Number(out.split(' ')[i]), 0));
    return { moved, retried, counted: counted.value, money: balances.map((b) => b.value) };
  } finally {
    await check.close();
  }
}
