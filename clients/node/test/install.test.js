// Finding the larder executable, and the package installed with npm from its
// directory (offline: nothing comes from a registry).
import { test, noBinary, prerequisite } from './support.js';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findBinary, PACKAGED_BINARY } from '../index.js';

const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));
const npmMissing = prerequisite(spawnSync('npm', ['--version']).status !== 0 && 'npm is not installed');

function scratch(t) {
  const dir = mkdtempSync(join(tmpdir(), 'larder-node-install-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function fakeExecutable(dir) {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'larder');
  writeFileSync(path, '#!/bin/sh\n');
  chmodSync(path, 0o755);
  return path;
}

test('findBinary: the binary option, then $LARDER_BIN, then the packaged one, then PATH', (t) => {
  const dir = scratch(t);
  const onPath = fakeExecutable(join(dir, 'path'));
  const env = { LARDER_BIN: '/from/env/larder', PATH: `${join(dir, 'empty')}:${join(dir, 'path')}` };
  assert.equal(findBinary('/given/larder', { env }), '/given/larder');
  assert.equal(findBinary(undefined, { env }), '/from/env/larder');
  // This checkout ships no bin/larder, so PATH comes next (the packaged case is tested installed, below).
  assert.equal(findBinary(undefined, { env: { PATH: env.PATH } }), onPath);
});

test('findBinary: when nothing is found the error names every place tried', (t) => {
  const dir = scratch(t);
  writeFileSync(join(dir, 'larder'), 'not executable');
  const e = (() => {
    try {
      findBinary(undefined, { env: { PATH: dir } });
    } catch (err) {
      return err;
    }
  })();
  assert.equal(e?.code, 'ENOENT');
  assert.equal(e.message,
    `cannot find the larder executable: no binary option, $LARDER_BIN is not set, no executable at ${PACKAGED_BINARY}, ` +
    `and no larder in $PATH (${dir})`);
});

/** Runs `script` as an ES module in `app`, with `env`; its stdout parsed as JSON. */
function runIn(app, script, env) {
  writeFileSync(join(app, 'main.mjs'), script);
  const r = spawnSync(process.execPath, ['main.mjs'], { cwd: app, env, encoding: 'utf8', timeout: 30_000 });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

function newApp(dir) {
  const app = join(dir, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  return app;
}

function npmInstall(app, ...args) {
  execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', ...args], { cwd: app, stdio: 'pipe', timeout: 60_000 });
}

const USE = `
import { Larder } from 'larder';
const db = await Larder.spawn({ memory: true });
await db.cache.set('k', { installed: true });
const hit = await db.cache.get('k');
const status = await db.close();
console.log(JSON.stringify({ server: db.server.serverInfo.name, value: hit.value, status }));
`;

test('npm install ./clients/node gives an app `import ... from \'larder\'`', { skip: noBinary || npmMissing }, (t) => {
  const app = newApp(scratch(t));
  npmInstall(app, PACKAGE_DIR);
  const out = runIn(app, USE, { ...process.env, LARDER_BIN: findBinary() });
  assert.deepEqual(out, { server: 'larder', value: { installed: true }, status: { exitCode: 0, signal: null } });
});

test('a larder packaged at bin/larder is found without $LARDER_BIN or PATH', { skip: noBinary || npmMissing }, (t) => {
  const dir = scratch(t);
  const pkg = join(dir, 'larder');
  cpSync(PACKAGE_DIR, pkg, { recursive: true, filter: (src) => !/\/(test|bench|node_modules|bin)$/.test(src) });
  mkdirSync(join(pkg, 'bin'));
  copyFileSync(findBinary(), join(pkg, 'bin', 'larder'));
  const app = newApp(dir);
  // --install-links packs the package as it would be published, so bin/larder must be among its files.
  npmInstall(app, '--install-links', pkg);
  const env = { PATH: '/nonexistent', HOME: process.env.HOME };
  const out = runIn(app, USE, env);
  assert.deepEqual(out, { server: 'larder', value: { installed: true }, status: { exitCode: 0, signal: null } });
});

// npm pack's prepack step (scripts/pack.js) puts the executable .ci/dist built at bin/larder.
const DIST = fileURLToPath(new URL('../../../.build/dist/', import.meta.url));
function distBinary() {
  try {
    return readdirSync(DIST).filter((f) => /^larder-.*-linux-[^.]+$/.test(f)).map((f) => join(DIST, f))[0] ?? false;
  } catch {
    return false;
  }
}
const noDist = prerequisite(!distBinary() && `no self-contained larder in ${DIST}: run bash .ci/dist`);

/** A copy of this package as a checkout has it (no bin/larder), to pack without touching the checkout. */
function packageCopy(dir) {
  const pkg = join(dir, 'larder');
  cpSync(PACKAGE_DIR, pkg, { recursive: true, filter: (src) => !/\/(test|bench|node_modules|bin)$/.test(src) });
  return pkg;
}

test('npm pack carries the larder given as LARDER_PACKAGE_BINARY at bin/larder, and leaves the directory as it was',
  { skip: noDist || npmMissing }, (t) => {
    const dir = scratch(t);
    const pkg = packageCopy(dir);
    const env = { ...process.env, LARDER_PACKAGE_BINARY: distBinary() };
    const name = execFileSync('npm', ['pack', '--silent', '--pack-destination', dir], { cwd: pkg, env, encoding: 'utf8' }).trim();
    const listing = execFileSync('tar', ['tzvf', join(dir, name)], { encoding: 'utf8' });
    assert.match(listing, /^-rwxr-xr-x .* package\/bin\/larder$/m);
    execFileSync('tar', ['xzf', join(dir, name), '-C', dir, 'package/bin/larder']);
    assert.ok(readFileSync(join(dir, 'package', 'bin', 'larder')).equals(readFileSync(distBinary())));
    assert.ok(!existsSync(join(pkg, 'bin', 'larder')), 'postpack removes the copy');
  });

test('npm pack with no larder to carry fails saying how to get one', { skip: npmMissing }, (t) => {
  const pkg = packageCopy(scratch(t));
  const env = { ...process.env };
  delete env.LARDER_PACKAGE_BINARY;
  const r = spawnSync('npm', ['pack', '--silent', '--dry-run'], { cwd: pkg, env, encoding: 'utf8' });
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /no larder executable to pack: run `bash \.ci\/dist` at the repository's root/);
});
