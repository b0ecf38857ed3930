// Four processes at once, each with a sidecar of its own on one store,
// updating one key: by counter, or by read, conditional write and retry.
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

/**
 * Runs `worker` in four processes at once, each with its own sidecar on
 * `store` (a directory, or a PostgreSQL URL with `pgSchema`); answers the
 * counter they left.
 */
export async function fourProcesses(worker, store, rounds, pgSchema = '') {
  const index = new URL('../index.js', import.meta.url).href;
  const env = { ...process.env, LARDER_BIN: findBinary() };
  const runs = Array.from({ length: 4 }, () => new Promise((resolve) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', worker, index, store, String(rounds), pgSchema],
      { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => { stderr += chunk; });
    child.on('close', (code) => resolve({ code, stderr }));
  }));
  for (const { code, stderr } of await Promise.all(runs)) assert.equal(code, 0, stderr);
  const check = await Larder.spawn({ store, pgSchema: pgSchema || undefined });
  try {
    return (await check.cache.get('counter')).value;
  } finally {
    await check.close();
  }
}
