// index.d.ts declares what index.js exports, and tsc accepts it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { prerequisite } from './support.js';
import * as larder from '../index.js';

const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));
const declarations = readFileSync(new URL('../index.d.ts', import.meta.url), 'utf8');

/** The body of `export class name` in index.d.ts. */
function declaredClass(name) {
  const start = declarations.search(new RegExp(`^export class ${name}\\b`, 'm'));
  if (start < 0) return undefined;
  const end = declarations.indexOf('\n}\n', start);
  return declarations.slice(start, end);
}

test('every export of index.js is declared in index.d.ts', () => {
  const declared = new Set([...declarations.matchAll(/^export (?:declare )?(?:class|function|const) (\w+)/gm)].map((m) => m[1]));
  const undeclared = Object.keys(larder).filter((name) => !declared.has(name));
  assert.deepEqual(undeclared, []);
  const gone = [...declared].filter((name) => !(name in larder));
  assert.deepEqual(gone, [], 'declared but not exported');
});

test('every public method of the exported classes is declared', () => {
  const missing = [];
  for (const [name, value] of Object.entries(larder)) {
    if (typeof value !== 'function' || !/^class\b/.test(Function.prototype.toString.call(value))) continue;
    const body = declaredClass(name) ?? '';
    const members = [
      ...Object.getOwnPropertyNames(value.prototype).filter((m) => m !== 'constructor'),
      ...Object.getOwnPropertyNames(value).filter((m) => !['length', 'name', 'prototype', 'code'].includes(m)),
    ];
    for (const member of members) {
      if (!new RegExp(`\\b${member}\\b`).test(body)) missing.push(`${name}.${member}`);
    }
  }
  assert.deepEqual(missing, []);
});

const tsc = spawnSync('tsc', ['--version'], { encoding: 'utf8' });
const noTsc = prerequisite(tsc.status !== 0 && 'tsc is not installed (Debian: apt-get install node-typescript)');

test('tsc --noEmit accepts index.d.ts and the typed usage in test/types', { skip: noTsc }, () => {
  const r = spawnSync('tsc', ['--noEmit', '-p', PACKAGE_DIR], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stdout + r.stderr);
});
