// The mutation matrix: the whole conformance suite once per reference mode, and for each reference fault the tests
// tagged with the requirement it breaks, as projects of one run against one embedded reference server.
// Used by tests/self/mutation.spec.ts. Only the tagged tests run per fault because Playwright replaces its worker
// after every failed test: the whole suite per fault costs minutes and proves nothing more about that fault.
import { defineConfig } from '@playwright/test';
import base from '../../playwright.config';
import { FAULTS, MODES, profilePath } from '../../reference/server';
import { loadConfig } from '../support/config';

// Faults and modes exist only on the embedded reference; never send this matrix anywhere else.
if (!loadConfig().embedded)
  throw new Error('The mutation matrix runs against the embedded reference only: unset RSF_TARGET_URL.');

const reportsDir = process.env.RSF_REPORTS_DIR || '../../reports/mutation-run';

export const modeProject = (mode: string): string => `mode-${mode}`;
export const faultProject = (fault: string): string => `fault-${fault}`;
/** Matches a test tagged @id, and not one tagged @id-SOMETHING. */
const taggedWith = (id: string): RegExp => new RegExp(`@${id}(\\s|$)`);
/**
 * A worker serves one project only, and starting one costs more CPU than most fault projects' tests: one worker
 * per project (two projects still run side by side) instead of one per file of its tests.
 */
const PROJECT_WORKERS = 1;

export default defineConfig<object, { referenceProfile: string; failingChecksExpected: boolean }>({
  ...base,
  testDir: '../conformance',
  outputDir: '../../test-results/mutation',
  globalSetup: '../support/global-setup.ts',
  // Each project needs workers of its own; one per file, not one per test, keeps worker start-ups few.
  fullyParallel: false,
  reporter: [
    ['dot'],
    ['../support/reporter/conformance-reporter.ts', { outputDir: reportsDir, perProjectDir: `${reportsDir}/projects` }],
  ],
  projects: [
    ...MODES.map((m) => ({
      name: modeProject(m.name),
      use: { referenceProfile: profilePath({ mode: m.name }) },
      workers: PROJECT_WORKERS,
    })),
    ...FAULTS.map((f) => ({
      name: faultProject(f.name),
      grep: taggedWith(f.breaks),
      use: { referenceProfile: profilePath({ fault: f.name }), failingChecksExpected: true },
      workers: PROJECT_WORKERS,
    })),
  ],
});
