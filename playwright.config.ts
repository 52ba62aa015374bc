// `npm run conformance`: the conformance suite, against RSF_TARGET_URL or the embedded reference server.
import { randomInt } from 'node:crypto';
import { defineConfig } from '@playwright/test';
import { version } from './package.json';
import { loadConfig } from './tests/support/config';
import { displayTarget, referenceProfilePath } from './tests/support/target';

// Chosen once, here in the runner; workers inherit the environment, so every property test of the run shares it.
process.env.RSF_FC_SEED ||= String(randomInt(2 ** 31 - 1));

function describeRun(): Record<string, string> {
  try {
    const config = loadConfig();
    return {
      target: displayTarget(config),
      safetyMode: config.writesEnabled ? 'writes enabled' : 'read-only',
      profile: config.embedded ? referenceProfilePath(config) || 'reference' : '',
      reportsDir: config.reportsDir,
    };
  } catch {
    return { target: 'invalid configuration', safetyMode: 'read-only', profile: '', reportsDir: 'reports' }; // the global setup explains
  }
}

const run = describeRun();

export default defineConfig({
  testDir: './tests/conformance',
  outputDir: './test-results/conformance',
  fullyParallel: true,
  forbidOnly: !!process.env.CI,
  retries: 0,
  workers: '100%',
  timeout: 60_000,
  globalSetup: './tests/support/global-setup.ts',
  reporter: [
    ['list'],
    ['html', { outputFolder: `${run.reportsDir}/playwright`, open: 'never' }],
    // Right after 'html': rewrites its report without the secrets its step titles and errors carry.
    ['./tests/support/reporter/redact-playwright-report.ts', { folder: `${run.reportsDir}/playwright` }],
    // Last, so that its verdict line ends the output.
    ['./tests/support/reporter/conformance-reporter.ts', { outputDir: run.reportsDir }],
  ],
  use: { trace: 'off' },
  metadata: {
    target: run.target,
    safetyMode: run.safetyMode,
    profile: run.profile,
    suiteVersion: version,
    seed: process.env.RSF_FC_SEED,
  },
});
