// Uses the larder package as `npm install` of its tarball left it, with the
// executable the tarball carries: copied into an app that installed it and
// run there with node, $LARDER_BIN unset (.ci/install-test runs it where the
// Swift toolchain and the -dev packages are hidden). Exits non-zero, saying
// what failed, if anything does; prints how long the first answer took.
//
// A representative subset of the client's suite: spawn, set and get, Buffers,
// getOrFetch, entities, a store directory reopened, and a store on PostgreSQL
// when $LARDER_TEST_PG_URL names one (with CI=true it must).
import { Larder, findBinary, PACKAGED_BINARY } from 'larder';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

if (process.env.LARDER_BIN !== undefined) throw new Error('unset LARDER_BIN: this checks the executable the package carries');
assert.match(PACKAGED_BINARY, /\/node_modules\/larder\/bin\/larder$/, 'larder was not imported from an installed package');
assert.equal(findBinary(), PACKAGED_BINARY, 'the executable found');

const started = performance.now();
const db = await Larder.spawn({ memory: true });
const firstAnswer = performance.now() - started;
assert.equal(db.server.serverInfo.name, 'larder');
await db.cache.set('k', { installed: true });
assert.deepEqual((await db.cache.get('k')).value, { installed: true }, 'get');
const png = Buffer.concat([Buffer.from('\x89PNG\r\n\x1a\n', 'latin1'), Buffer.from([...Array(256).keys()])]);
await db.cache.set('png', png);
assert.deepEqual((await db.cache.get('png')).data, png, 'a Buffer');
const calls = [];
const load = async (key) => {
  calls.push(key);
  return { loaded: key };
};
assert.deepEqual((await db.cache.getOrFetch('u:1', load)).value, { loaded: 'u:1' }, 'getOrFetch, a miss');
assert.deepEqual((await db.cache.getOrFetch('u:1', load)).value, { loaded: 'u:1' }, 'getOrFetch, then a hit');
assert.deepEqual(calls, ['u:1'], 'fetcher calls');
await db.entity.define('Bands', [
  { name: 'Band', identifier: 'name', attributes: { name: 'string', formed: 'integer' },
    relationships: [{ name: 'albums', destination: 'Album', toMany: true, inverse: 'band' }] },
  { name: 'Album', identifier: 'name', attributes: { name: 'string' },
    relationships: [{ name: 'band', destination: 'Band', inverse: 'albums' }] },
]);
await db.entity.stage('Album', [{ name: 'Tin Drum', band: 'Japan' }]);
await db.entity.stage('Band', [{ name: 'Japan', formed: 1974 }]);
await db.entity.apply();
const band = (await db.entity.get('Band', 'Japan', { include: ['albums'] })).record;
assert.deepEqual(band.albums.map((a) => a.name), ['Tin Drum'], 'entity with its albums');
await db.close();

const scratch = mkdtempSync(join(tmpdir(), 'larder-installed-'));
try {
  const store = join(scratch, 'store');
  const writer = await Larder.spawn({ store });
  await writer.cache.set('kept', [1, 2, 3]);
  await writer.close();
  const reader = await Larder.spawn({ store });
  assert.deepEqual((await reader.cache.get('kept')).value, [1, 2, 3], 'a store directory reopened');
  await reader.close();
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

const url = process.env.LARDER_TEST_PG_URL;
if (url) {
  const pgSchema = process.env.LARDER_TEST_PG_SCHEMA ?? `larder_installed_node_${process.pid}`;
  const writer = await Larder.spawn({ store: url, pgSchema });
  await writer.cache.set('on-postgres', { ok: true });
  await writer.close();
  const reader = await Larder.spawn({ store: url, pgSchema });
  assert.deepEqual((await reader.cache.get('on-postgres')).value, { ok: true }, 'a store on PostgreSQL reopened');
  await reader.close();
  console.log(`schema ${pgSchema} made on PostgreSQL`);
} else if (process.env.CI === 'true') {
  throw new Error('LARDER_TEST_PG_URL is not set (CI=true: the store on PostgreSQL must be checked)');
}

console.log(`node: installed larder answered initialize ${firstAnswer.toFixed(1)} ms after spawn; all checks passed`);
