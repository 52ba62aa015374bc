// `npm test`: the project's own tests (schemas, catalogue, reference server, reporter, mutation matrix).
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from '@playwright/test';
import { isRunning } from '../../src/http/run-folders';
import { SELF_TEST_RUN_ENV } from './support/self-test-run';

/**
 * Each run of the self-tests has an output folder of its own, named after its runner's process: Playwright empties a
 * project's folder as a run starts, and a test's folder as the test starts, so two npm test side by side in one
 * checkout would remove each other's child runs and scratch folders. The workers load this file too, and inherit the
 * runner's name for it; a child run of the suite is given no RSF_ variable of its parent (child-run.ts, childEnv).
 */
const RUN_ENV = SELF_TEST_RUN_ENV;
const RESULTS = join(__dirname, '../../test-results/self');
// The self-tests set the proxies they test (proxy.spec.ts); one of this machine's would carry their made-up hosts.
for (const name of Object.keys(process.env)) if (/^(https?|all|no)_proxy$/i.test(name)) delete process.env[name];
if (process.env[RUN_ENV] === undefined) {
  process.env[RUN_ENV] = `run-${process.pid}`;
  removeEndedRuns();
}

/** The folders of runs whose runner is gone (and of an older layout): Playwright empties only the run's own. */
function removeEndedRuns(): void {
  let names: string[];
  try {
    names = readdirSync(RESULTS);
  } catch {
    return; // no run yet
  }
  for (const name of names) {
    const pid = Number(/^run-(\d+)$/.exec(name)?.[1]);
    if (!(Number.isInteger(pid) && isRunning(pid))) rmSync(join(RESULTS, name), { recursive: true, force: true });
  }
}

/** The longest self-test by far (it runs the suite against every mode and fault): it goes first, see projects. */
const MATRIX = 'mutation.spec.ts';
/** Files of long child runs: they go next, so that the run does not end waiting on one of them. */
const LONG = ['sharding', 'hostile-targets', 'properties-replay', 'release-gate', 'safety', 'replay'].map(
  (f) => `**/${f}.spec.ts`,
);

export default defineConfig({
  testDir: '.',
  testMatch: '**/*.spec.ts',
  testIgnore: '**/fixtures/**',
  outputDir: join(RESULTS, process.env[RUN_ENV] ?? ''),
  fullyParallel: true,
  forbidOnly: !!process.env.CI,
  // Many self-tests run Playwright in a child process with workers of its own, and several of those wait on purpose
  // (hostile targets that hang, drip or throttle): 5 workers keep the 2 cores of the machine we target busy while
  // they wait (npm test < 120 s, README "Benchmark"; 4 took 127 and 129 s, 5 took 122 and 120 s, 6 took 123 s). No
  // self-test asserts on a clock: contention slows them, and cannot fail them.
  workers: 5,
  timeout: 60_000,
  reporter: [['list']],
  // Workers take tests in project order: the matrix and the long child runs start at once, and the short tests fill
  // the gaps, instead of a long one starting late and running on alone at the end.
  projects: [
    { name: 'matrix', testMatch: `**/${MATRIX}` },
    { name: 'long', testMatch: LONG },
    { name: 'self', testIgnore: ['**/fixtures/**', `**/${MATRIX}`, ...LONG] },
  ],
});
