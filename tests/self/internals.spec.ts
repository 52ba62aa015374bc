// Playwright internals the suite relies on (src/playwright/internals.ts): this fails loudly when an upgrade of
// Playwright renames or drops one, so that the adapter is revisited instead of silently doing nothing.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { REPLACED_PLAYWRIGHT_FIXTURES } from '../../src/playwright/internals';
import { expect, test } from '../../src/playwright/fixtures';
import { runPlaywright } from './support/child-run';
import { scratchDir } from './support/scratch';

test('Playwright still defines every fixture that internals.ts replaces', () => {
  // The fixtures are defined in Playwright's test entry point, as keys of its base test's fixtures.
  const root = dirname(require.resolve('playwright/package.json'));
  const entry = readFileSync(join(root, 'lib/index.js'), 'utf8');
  for (const name of REPLACED_PLAYWRIGHT_FIXTURES) {
    expect(entry, `${name}: Playwright ${require('playwright/package.json').version} no longer defines it`).toMatch(
      new RegExp(`\\b${name}\\s*:`),
    );
  }
});

test('no module of the suite but internals.ts names a Playwright internal', () => {
  // The internals the suite once used, and those the adapter replaces; spelt from parts, so that this file is no hit.
  const internals = [
    ['_parallel', 'Mode'],
    ['\\.f', 'n\\b'],
    ['_m', 'ode\\b'],
  ].map((parts) => parts.join(''));
  const pattern = [...internals, ...REPLACED_PLAYWRIGHT_FIXTURES].join('\\|');
  const grep = spawnSync('git', ['grep', '--untracked', '-l', pattern, '--', 'src', 'tests/conformance', 'reference'], {
    encoding: 'utf8',
  });
  const files = grep.stdout.split('\n').filter(Boolean);
  expect(files).toEqual(['src/playwright/internals.ts']);
});

test('--last-failed runs again a test that a requirement failed, which the suite marked expected', async () => {
  const out = scratchDir('last-failed');
  const env = { RSF_REFERENCE_FAULT: 'error-json-as-text-plain', RSF_REPORTS_DIR: join(out, 'reports') };
  const run = (...args: string[]) => runPlaywright(['test', '--output', join(out, 'results'), ...args], env, 60_000);
  const first = await run('client.spec.ts', '-g', 'refuses a request without an Authorization header');
  expect(first.code, first.stdout).toBe(1);
  // Before, Playwright's .last-run.json listed no failed test, and --last-failed ran none.
  const again = await run('--last-failed');
  expect(again.stdout, 'the one failed test, and only it').toMatch(/^Running 1 tests? using 1 worker$/m);
  expect(again.code, again.stdout).toBe(1);
});
