// npm pack's prepack and postpack steps: the package carries the larder
// executable at bin/larder, where findBinary looks first after $LARDER_BIN.
//
//   prepack   copies $LARDER_PACKAGE_BINARY to bin/larder (.ci/dist sets it to the
//             self-contained executable it built); without it, packs the bin/larder
//             already there; with neither, fails saying how to get one.
//   postpack  removes the copy prepack made, leaving the checkout as it was.
import { execFileSync } from 'node:child_process';
import { accessSync, chmodSync, constants, copyFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const target = fileURLToPath(new URL('../bin/larder', import.meta.url));
const given = process.env.LARDER_PACKAGE_BINARY;
const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

function fail(message) {
  console.error(`npm pack: ${message}`);
  process.exit(1);
}

if (process.argv[2] === 'postpack') {
  if (given) rmSync(target, { force: true });
} else {
  if (given) {
    mkdirSync(fileURLToPath(new URL('../bin', import.meta.url)), { recursive: true });
    copyFileSync(given, target);
    chmodSync(target, 0o755);
  }
  try {
    accessSync(target, constants.X_OK);
  } catch {
    fail('no larder executable to pack: run `bash .ci/dist` at the repository\'s root (it builds the ' +
      'self-contained larder and packs this package with it), or set LARDER_PACKAGE_BINARY to a larder it built');
  }
  const said = execFileSync(target, ['--version'], { encoding: 'utf8' }).trim();
  if (said.split(' ')[1] !== version) fail(`${target} says "${said}", but this package is version ${version}`);
}
