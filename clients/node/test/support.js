// What the tests need from outside this package, and what happens when it is
// missing: the test is skipped, except in CI (CI=true), where a missing
// prerequisite fails the run instead of passing it by skipping.
import * as nodeTest from 'node:test';
import { accessSync, constants } from 'node:fs';
import { findBinary } from '../index.js';

/** Whether this run is CI's, where nothing may be skipped for lack of a prerequisite. */
export const IN_CI = /^(1|true|yes)$/i.test(process.env.CI ?? '');

/**
 * Why a prerequisite is missing as a `skip` reason for node:test, or false
 * when it is there; in CI a missing one throws, failing the test file.
 * @param {string | false} missing what is missing, or false
 */
export function prerequisite(missing) {
  if (missing && IN_CI) throw new Error(`${missing} (CI=true, so this fails instead of skipping)`);
  return missing;
}

function binaryMissing() {
  try {
    const binary = findBinary();
    accessSync(binary, constants.X_OK);
    return false;
  } catch (err) {
    return `no larder binary to test against: ${err.message}`;
  }
}

/** The reason server tests skip (no larder binary), or false. */
export const noBinary = prerequisite(binaryMissing());

const skipped = (name) => nodeTest.test(name, { skip: noBinary }, () => {});

/** node:test's `test`, skipped when there is no binary to test against. */
export const test = noBinary ? skipped : nodeTest.test;
/** node:test's `before`, `after`, `beforeEach` and `afterEach`, not run when there is no binary. */
export const before = noBinary ? () => {} : nodeTest.before;
export const after = noBinary ? () => {} : nodeTest.after;
export const beforeEach = noBinary ? () => {} : nodeTest.beforeEach;
export const afterEach = noBinary ? () => {} : nodeTest.afterEach;
export const describe = nodeTest.describe;
