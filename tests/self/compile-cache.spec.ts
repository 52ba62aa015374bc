// The compile cache of npm test's child runs (support/compile-cache.cjs): on Node 20 it relies on Node internals,
// and this fails loudly when they change, instead of the cache silently doing nothing.
import { spawnSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import Module from 'node:module';
import { join } from 'node:path';
import { expect, test } from '../../src/playwright/fixtures';
import { COMPILE_CACHE, REPO_ROOT, childEnv, runPlaywright } from './support/child-run';
import { scratchDir } from './support/scratch';

/** Node 22.1 and later: the public module.enableCompileCache(). */
const publicApi = typeof (Module as { enableCompileCache?: unknown }).enableCompileCache === 'function';

/** Runs `code` in a process of its own with the cache preloaded: what it printed, and its counts. */
function throughCache(cacheDir: string, code: string): { stdout: string; counts: unknown } {
  const child = spawnSync(process.execPath, ['--require', COMPILE_CACHE, '-e', code], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    env: { ...childEnv({}), SELF_TEST_COMPILE_CACHE_DIR: cacheDir, SELF_TEST_COMPILE_CACHE_REPORT: '1' },
  });
  expect(child.stderr, 'only the counts on stderr: no warning, no error').toMatch(/^compile-cache: \{.*\}\n$/);
  return { stdout: child.stdout, counts: JSON.parse(child.stderr.slice('compile-cache: '.length)) };
}

/** Loads @playwright/test through the cache. */
const loadPlaywright = (cacheDir: string) =>
  throughCache(cacheDir, "process.stdout.write(typeof require('@playwright/test').test)");

test('Node 20: the modules a process loads are compiled once, and the next process reads their code cache', () => {
  test.skip(publicApi, 'Node 22.1 and later: module.enableCompileCache(), no internals');
  const dir = scratchDir('compile-cache');
  // Its core, its utilities, its TypeScript transform (1.65: 3 files of megabytes) and the modules they load.
  const first = loadPlaywright(dir);
  expect(first.stdout, 'Playwright loaded through the cache works').toBe('function');
  const compiled = (first.counts as { compiled: number }).compiled;
  expect(compiled, 'the modules compiled through the cache').toBeGreaterThan(0);
  expect(first.counts).toEqual({ read: 0, compiled });
  expect(readdirSync(dir), 'each cached as the process exits').toHaveLength(compiled);
  const second = loadPlaywright(dir);
  expect(second.stdout).toBe('function');
  // Node no longer compiles CommonJS through Module.prototype._compile, or V8 refuses the cache: this fails.
  expect(second.counts, 'every module read from the cache, none compiled').toEqual({ read: compiled, compiled: 0 });
});

test('Node 20: a module whose text changed replaces its entry: editing the suite does not grow the cache', () => {
  test.skip(publicApi, 'Node 22.1 and later: module.enableCompileCache(), no internals');
  const dir = scratchDir('compile-cache');
  // In the checkout (the test's output folder): modules from outside it are not cached.
  const module = join(scratchDir('module'), 'answer.js');
  const load = () => throughCache(dir, `process.stdout.write(String(require(${JSON.stringify(module)})))`);
  writeFileSync(module, 'module.exports = 1;');
  expect(load()).toEqual({ stdout: '1', counts: { read: 0, compiled: 1 } });
  const [first] = readdirSync(dir);
  writeFileSync(module, 'module.exports = 2;');
  expect(load()).toEqual({ stdout: '2', counts: { read: 0, compiled: 1 } });
  expect(readdirSync(dir), 'the entry of its earlier text is gone').toEqual([expect.not.stringMatching(first ?? '')]);
  expect(load(), 'and the new one is read').toEqual({ stdout: '2', counts: { read: 1, compiled: 0 } });
});

test('Node 22.1 and later: the cache is module.enableCompileCache(), in the same folder', () => {
  test.skip(!publicApi, `Node ${process.version} has no module.enableCompileCache()`);
  const dir = scratchDir('compile-cache');
  expect(loadPlaywright(dir).stdout).toBe('function');
  expect(readdirSync(dir).length, "Node's own cache, written in the folder").toBeGreaterThan(0);
});

test('a child run of npm test goes through it, and prints no warning of it', async () => {
  expect(childEnv({}).NODE_OPTIONS).toContain(`--require ${JSON.stringify(COMPILE_CACHE)}`);
  const run = await runPlaywright(['test', '--list', 'tests/conformance/prices.spec.ts'], {}, 60_000);
  expect(run.code).toBe(0);
  // The tests it would run, as Playwright's list reporter lists them (the console said "Running 8 tests", and listed
  // none), and the target they would run against.
  expect(run.stdout).toMatch(/^Listing tests:\n {2}tests\/conformance\/prices\.spec\.ts:\d+:\d+ › GET \/prices/m);
  expect(run.stdout).toMatch(/^Total: \d+ tests in 1 file$/m);
  expect(run.stdout).not.toMatch(/^Running /m);
  expect(run.stdout).toMatch(/^Target: embedded reference server \(RSF_TARGET_URL is not set\), writes enabled$/m);
  expect(run.stderr).not.toMatch(/Warning/);
});
