// Merges sharded runs into one conformance report.
//
//   # each shard, e.g. on its own machine (give each blob its own file name; playwright.config.ts writes a
//   # redacted blob when it sees --shard):
//   PLAYWRIGHT_BLOB_OUTPUT_FILE=all-blobs/shard-1.zip npx playwright test --shard=1/2
//   PLAYWRIGHT_BLOB_OUTPUT_FILE=all-blobs/shard-2.zip npx playwright test --shard=2/2
//   # then, with every blob zip in one folder:
//   npx playwright merge-reports --config tests/support/reporter/merge.config.ts all-blobs
//
// The reports go to RSF_REPORTS_DIR (default reports/), as after an unsharded run: conformance.* and junit.xml, plus
// Playwright's HTML report in playwright/. Use the same RSF_FC_SEED for all shards so that they are one run.
// merge-reports exits 0 whatever the verdict (Playwright fails a merge only on reporter errors), so CI checks it:
//   node -e "process.exit(require('./reports/conformance.json').summary.verdict === 'PASS' ? 0 : 1)"
import { resolve } from 'node:path';
import { defineConfig } from '@playwright/test';
import { loadEnvFile, SETTINGS } from '../config';

loadEnvFile();

const repoRoot = resolve(__dirname, '../../..');
const reportsDir = resolve(repoRoot, process.env[SETTINGS.reportsDir.name]?.trim() || SETTINGS.reportsDir.default);
// As Playwright does, its environment variable wins for the html report's folder; the redaction must follow it.
const htmlDir = process.env.PLAYWRIGHT_HTML_OUTPUT_DIR || process.env.PLAYWRIGHT_HTML_REPORT || resolve(reportsDir, 'playwright');

export default defineConfig({
  // merge-reports resolves test locations against testDir: it must be the testDir of playwright.config.ts.
  testDir: resolve(repoRoot, 'tests/conformance'),
  reporter: [
    ['html', { outputFolder: htmlDir, open: 'never' }],
    // Right after 'html': rewrites its report without the secrets its step titles and errors carry.
    ['./redact-playwright-report.ts', { folder: htmlDir }],
    ['./conformance-reporter.ts', { outputDir: reportsDir }],
  ],
});
