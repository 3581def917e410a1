// The type declarations, checked by the TypeScript compiler (Debian's node-typescript; .ci/run installs it).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const tsc = ['/usr/share/nodejs/typescript/bin/tsc', '/usr/bin/tsc'].find(existsSync);

test('index.d.ts types a typical test and refuses misuse', () => {
  assert.ok(tsc, 'tsc not found: install node-typescript');
  const args = ['--noEmit', '--strict', '--target', 'es2022', '--module', 'es2022', '--moduleResolution', 'node',
    '--lib', 'es2022,dom', join(here, 'consumer.ts')];
  try {
    execFileSync(process.execPath, [tsc, ...args], { encoding: 'utf8' });
  } catch (error) {
    assert.fail(`tsc found errors:\n${error.stdout}${error.stderr}`);
  }
});
