// `npm run conformance`: the conformance suite, against RSF_TARGET_URL or the embedded reference server.
import { randomInt } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import { defineConfig, type ReporterDescription } from '@playwright/test';
import { version } from './package.json';
import { loadConfig, loadEnvFile } from './src/config/config';
import { displayTarget, referenceProfilePath } from './src/config/target';

// Before anything reads a setting; workers inherit the environment this leaves.
loadEnvFile();

// Chosen once, here in the runner; workers inherit the environment, so every property test of the run shares it.
process.env.RSF_FC_SEED ||= String(randomInt(2 ** 31 - 1));

/**
 * Workers follow the cores, requests in flight follow the target. A run against a near target (the embedded
 * reference, a host on this machine; RSF_TARGET_DISTANCE) is bound by CPU. Against a far one (or the reference with
 * RSF_REFERENCE_LATENCY_MS) the tests' declared requests are sent before the tests run (src/playwright/send-ahead.ts),
 * as many at once as the target's latency and the rate cap make useful, and only the chains of requests of a few
 * tests are left to wait. A worker more is a Node process that costs over half a second of CPU to start, and
 * measured by `npm run bench`, it made a far run slower.
 */
const WORKERS = '100%';

interface RunFacts {
  target: string;
  safetyMode: string;
  profile: string;
  reportsDir: string;
}

function describeRun(): RunFacts {
  try {
    const config = loadConfig();
    return {
      target: displayTarget(config),
      safetyMode: config.writesEnabled ? 'writes enabled' : 'read-only',
      profile: config.embedded ? referenceProfilePath(config) || 'reference' : '',
      reportsDir: config.reportsDir,
    };
  } catch {
    // The global setup explains what is wrong.
    return { target: 'invalid configuration', safetyMode: 'read-only', profile: '', reportsDir: 'reports' };
  }
}

const run = describeRun();
/** `--shard=i/n`: this run is one part of a run, reported as a blob to merge (a --reporter option still wins). */
const sharded = process.argv.some((arg) => arg.startsWith('--shard'));
/** Where Playwright's html and blob reporters write; their environment variables win, as in Playwright. */
const blobFile = process.env.PLAYWRIGHT_BLOB_OUTPUT_FILE;
const blobDir = blobFile
  ? dirname(resolve(blobFile))
  : process.env.PLAYWRIGHT_BLOB_OUTPUT_DIR || `${run.reportsDir}/blob`;
const htmlDir =
  process.env.PLAYWRIGHT_HTML_OUTPUT_DIR || process.env.PLAYWRIGHT_HTML_REPORT || `${run.reportsDir}/playwright`;

/** Tells the workers which tests follow theirs, so that they can send their requests ahead (send-ahead.ts). */
const SEND_AHEAD_PLAN: ReporterDescription = ['./src/playwright/send-ahead-plan.ts'];

export default defineConfig({
  testDir: './tests/conformance',
  outputDir: './test-results/conformance',
  // A worker runs a spec file's tests in order, so it knows the probes it may send ahead under a rate cap
  // (src/playwright/send-ahead.ts); the properties and the links are shared out test by test.
  fullyParallel: false,
  forbidOnly: !!process.env.CI,
  retries: 0,
  workers: WORKERS,
  timeout: 60_000,
  globalSetup: './src/playwright/global-setup.ts',
  reporter: sharded
    ? [
        SEND_AHEAD_PLAN,
        ['list'],
        // A shard's results are merged later (README, "Sharding"); its blob records API steps with their URLs,
        // so it is redacted too.
        ['blob', { outputDir: blobDir }],
        ['./src/playwright/redact-playwright-report.ts', { folder: blobDir }],
      ]
    : [
        SEND_AHEAD_PLAN,
        ['list'],
        // No source snippets for steps: they show this suite's code, not the target's answers, and building them
        // for a run's thousand steps took about 40 ms between the last test and the verdict (npm run bench).
        ['html', { outputFolder: htmlDir, open: 'never', noSnippets: true }],
        // Right after 'html': rewrites its report without the secrets its step titles and errors carry.
        ['./src/playwright/redact-playwright-report.ts', { folder: htmlDir }],
        // Last, so that its verdict line ends the output.
        ['./src/playwright/conformance-reporter.ts', { outputDir: run.reportsDir }],
      ],
  // Playwright removes each test's output folder after it, unless asked to keep it; the tests write none (their
  // evidence is in the reports), so a run is spared an rm per test. The folder of the run is cleared as it starts.
  preserveOutput: 'always',
  use: { trace: 'off' },
  metadata: {
    target: run.target,
    safetyMode: run.safetyMode,
    profile: run.profile,
    suiteVersion: version,
    seed: process.env.RSF_FC_SEED,
  },
});
