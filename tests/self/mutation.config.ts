// The mutation matrix: the whole conformance suite once per reference mode, and for each reference fault the tests
// tagged with the requirement it breaks, against one embedded reference server. Used by tests/self/mutation.spec.ts.
// Only the tagged tests run per fault because Playwright replaces its worker after every failed test: the whole
// suite per fault costs minutes and proves nothing more about that fault.
//
// Starting a worker costs more CPU than most faults' tests, and a worker serves one project. So faults share
// projects, in rounds: RSF_MATRIX_ROUNDS lists them (matrix-rounds.ts), such that no test is tagged with the
// requirements of two faults of one round; each test of a round is sent to the one fault its tags name. Without
// it, each fault is a round of its own.
import { defineConfig } from '@playwright/test';
import base from '../../playwright.config';
import { FAULTS, type Fault, MODES, profilePath } from '../../reference/server';
import { loadConfig } from '../../src/config/config';

// Faults and modes exist only on the embedded reference; never send this matrix anywhere else.
if (!loadConfig().embedded)
  throw new Error('The mutation matrix runs against the embedded reference only: unset RSF_TARGET_URL.');

const reportsDir = process.env.RSF_REPORTS_DIR || '../../reports/mutation-run';

export const modeProject = (mode: string): string => `mode-${mode}`;
export const roundProject = (round: number): string => `faults-${round + 1}`;
/** Matches a test tagged @id, and not one tagged @id-SOMETHING. */
const taggedWith = (id: string): RegExp => new RegExp(`@${id}(\\s|$)`);
/**
 * A worker serves one project only, and starting one costs more CPU than most fault projects' tests: one worker
 * per project (two projects still run side by side) instead of one per file of its tests.
 */
const PROJECT_WORKERS = 1;

/** The faults of each round: RSF_MATRIX_ROUNDS (a JSON array of arrays of fault names), or one fault per round. */
export function configuredRounds(): Fault[][] {
  const raw = process.env.RSF_MATRIX_ROUNDS;
  if (!raw) return FAULTS.map((f) => [f]);
  const names = JSON.parse(raw) as string[][];
  return names.map((round) =>
    round.map((name) => {
      const fault = FAULTS.find((f) => f.name === name);
      if (!fault) throw new Error(`RSF_MATRIX_ROUNDS names an unknown fault: ${name}`);
      return fault;
    }),
  );
}

export default defineConfig<{ profileByTag: Record<string, string> }, { referenceProfile: string }>({
  ...base,
  testDir: '../conformance',
  outputDir: '../../test-results/mutation',
  globalSetup: '../../src/playwright/global-setup.ts',
  // Each project needs workers of its own; one per file, not one per test, keeps worker start-ups few.
  fullyParallel: false,
  // One project per core at once, not the suite's one worker fewer: a project's worker spends much of its short life
  // starting, while the reference in the runner waits.
  workers: '100%',
  reporter: [
    // As in the suite's own config: each spec file's declared requests are sent as the file starts.
    ['../../src/playwright/plan-reporter.ts'],
    ['dot'],
    [
      '../../src/playwright/conformance-reporter.ts',
      { outputDir: reportsDir, perProjectDir: `${reportsDir}/projects` },
    ],
  ],
  projects: [
    ...MODES.map((m) => ({
      name: modeProject(m.name),
      use: { referenceProfile: profilePath({ mode: m.name }) },
      workers: PROJECT_WORKERS,
    })),
    ...configuredRounds().map((round, i) => ({
      name: roundProject(i),
      grep: round.map((f) => taggedWith(f.breaks)),
      use: {
        profileByTag: Object.fromEntries(round.map((f) => [`@${f.breaks}`, profilePath({ fault: f.name })])),
      },
      workers: PROJECT_WORKERS,
    })),
  ],
});
