// `npm test`: the project's own tests (schemas, catalogue, reference server, reporter, mutation matrix).
import { defineConfig } from '@playwright/test';

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
  outputDir: '../../test-results/self',
  fullyParallel: true,
  forbidOnly: !!process.env.CI,
  // Many self-tests run Playwright in a child process with workers of its own, and several of those wait on purpose
  // (hostile targets that hang, drip or throttle): 4 workers keep the 2 cores of the machine we target busy while
  // they wait (npm test < 120 s, README "Benchmark"). No self-test asserts on a clock: contention slows them, and
  // cannot fail them.
  workers: 4,
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
