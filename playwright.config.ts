// `npm run conformance`: the conformance suite, against RSF_TARGET_URL or the embedded reference server.
import { randomInt, randomUUID } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { defineConfig, type ReporterDescription } from '@playwright/test';
import { version } from './package.json';
import { SETTINGS, loadConfig, loadEnvFile } from './src/config/config';
import { displayTarget, referenceProfilePath, targetInProcess } from './src/config/target';
import { recordingPath, replayEnvironment } from './src/playwright/replay';
import { SPEC_DIR } from './src/report/model';
import { shardArgument, shardEntry } from './src/report/shards';

// Before anything reads a setting; workers inherit the environment this leaves.
loadEnvFile();

// A replay (RSF_TARGET_URL=har:PATH) sends what the recorded run sent: its seed, property runs and writes. A file
// that cannot be read is left to the global setup, which says so.
const recording = recordingPath(process.env.RSF_TARGET_URL);
if (recording !== undefined) {
  try {
    Object.assign(process.env, replayEnvironment(recording));
  } catch {}
}

// Chosen once, here in the runner; workers inherit the environment, so every property test of the run shares it.
const seed = process.env.RSF_FC_SEED || String(randomInt(2 ** 31 - 1));
process.env.RSF_FC_SEED = seed;

interface RunFacts {
  target: string;
  safetyMode: string;
  profile: string;
  reportsDir: string;
  /** The embedded reference without latency answers from the runner's process, at the cost of a core. */
  targetInProcess: boolean;
}

function describeRun(): RunFacts {
  try {
    const config = loadConfig();
    return {
      target: displayTarget(config),
      safetyMode: config.writesEnabled ? 'writes enabled' : 'read-only',
      profile: config.embedded ? referenceProfilePath(config) || 'reference' : '',
      reportsDir: config.reportsDir,
      targetInProcess: targetInProcess(config),
    };
  } catch {
    // The global setup explains what is wrong; the report of it goes where RSF_REPORTS_DIR says, as any other.
    return {
      target: 'invalid configuration',
      safetyMode: 'read-only',
      profile: '',
      reportsDir: process.env[SETTINGS.reportsDir.name]?.trim() || SETTINGS.reportsDir.default,
      targetInProcess: false,
    };
  }
}

const run = describeRun();

/**
 * Workers follow the cores: a worker is a Node process that costs over half a second of CPU to start. The embedded
 * reference without latency answers from the runner's own process, so it takes one of the cores: on 2 cores, one
 * worker finishes as soon as two did, for about 0.8 s less CPU. Requests in flight follow the target: a worker sends
 * the declared requests of a spec file as the file starts, as many at once as the target's measured latency makes
 * useful (src/playwright/prefetch.ts).
 */
const WORKERS = run.targetInProcess ? Math.max(1, availableParallelism() - 1) : '100%';
/** `--shard=i/n`: this run is one part of a run, reported as a blob to merge (a --reporter option still wins). */
const shard = shardArgument(process.argv);
const sharded = shard !== undefined;
/** Where Playwright's blob reporter writes; its environment variables win, as in Playwright. */
const blobFile = process.env.PLAYWRIGHT_BLOB_OUTPUT_FILE;
const blobDir = blobFile
  ? dirname(resolve(blobFile))
  : process.env.PLAYWRIGHT_BLOB_OUTPUT_DIR || `${run.reportsDir}/blob`;

/** Tells the workers which tests of a spec file the run runs, so that they send their requests ahead (prefetch.ts). */
const PLAN: ReporterDescription = ['./src/playwright/plan-reporter.ts'];
/**
 * The console: a test failed by a requirement shows as failed, though the suite marks it expected to keep the worker
 * (Playwright's list reporter would show it as passed).
 */
const CONSOLE: ReporterDescription = ['./src/playwright/console-reporter.ts'];

/** What the reports say of the run, and what every shard of one run has alike. */
const facts = {
  target: run.target,
  safetyMode: run.safetyMode,
  profile: run.profile,
  suiteVersion: version,
  seed,
};

export default defineConfig({
  testDir: `./${SPEC_DIR}`,
  // Playwright's own output (the last run, for --last-failed) goes with the reports, where RSF_REPORTS_DIR says: a run
  // writes nowhere else, so a checkout the run may not write to (an image run as another user) works. The folder is
  // Playwright's, emptied as each run starts.
  outputDir: join(run.reportsDir, '.playwright'),
  // A worker runs a spec file's tests in order: it sends the file's declared requests as the file starts
  // (src/playwright/prefetch.ts); the properties are shared out test by test.
  fullyParallel: false,
  forbidOnly: !!process.env.CI,
  retries: 0,
  workers: WORKERS,
  timeout: 60_000,
  globalSetup: './src/playwright/global-setup.ts',
  // No Playwright html report: it would file a test failed by a requirement under "passed" (expected to fail, to keep
  // the worker); reports/conformance.html is the run's report. A shard's blob is merged later (README, "Sharding").
  reporter: sharded
    ? [PLAN, CONSOLE, ['blob', { outputDir: blobDir }]]
    : [
        PLAN,
        CONSOLE,
        // Last, so that its verdict line ends the output.
        ['./src/playwright/conformance-reporter.ts', { outputDir: run.reportsDir }],
      ],
  // Playwright removes each test's output folder after it, unless asked to keep it; the tests write none (their
  // evidence is in the reports), so a run is spared an rm per test. The folder of the run is cleared as it starts.
  preserveOutput: 'always',
  use: { trace: 'off' },
  metadata: {
    ...facts,
    // The merge checks that its blobs are the shards of one run (src/report/shards.ts).
    ...(shard !== undefined && shardEntry({ shard, ...facts }, randomUUID())),
  },
});
