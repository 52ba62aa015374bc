// `npm test`: the project's own tests (schemas, catalogue, reference server, reporter, mutation matrix).
import { defineConfig } from '@playwright/test';

/** The longest self-test by far (it runs the suite against every mode and fault): it goes first, see projects. */
const MATRIX = 'mutation.spec.ts';

export default defineConfig({
  testDir: '.',
  testMatch: '**/*.spec.ts',
  testIgnore: '**/fixtures/**',
  outputDir: '../../test-results/self',
  fullyParallel: true,
  forbidOnly: !!process.env.CI,
  // Many self-tests run Playwright in a child process with workers of its own, and several of those wait on purpose
  // (hostile targets that hang, drip or throttle): 4 workers keep the 2 cores of the machine we target busy while
  // they wait (npm test < 120 s, README "Benchmark"). Timing assertions allow for the contention.
  workers: 4,
  timeout: 60_000,
  reporter: [['list']],
  // Workers take tests in project order: the matrix starts at once, and the other worker runs everything else
  // meanwhile, instead of the matrix starting late and running on alone at the end.
  projects: [
    { name: 'matrix', testMatch: `**/${MATRIX}` },
    { name: 'self', testIgnore: ['**/fixtures/**', `**/${MATRIX}`] },
  ],
});
