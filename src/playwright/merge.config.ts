// Merges sharded runs into one conformance report.
//
//   # each shard, e.g. on its own machine (give each blob its own file name; playwright.config.ts writes a
//   # blob when it sees --shard):
//   PLAYWRIGHT_BLOB_OUTPUT_FILE=all-blobs/shard-1.zip npx playwright test --shard=1/2
//   PLAYWRIGHT_BLOB_OUTPUT_FILE=all-blobs/shard-2.zip npx playwright test --shard=2/2
//   # then, with every blob zip in one folder:
//   npx playwright merge-reports --config src/playwright/merge.config.ts all-blobs
//
// The reports go to RSF_REPORTS_DIR (default reports/), as after an unsharded run: conformance.* and junit.xml.
// Use the same RSF_FC_SEED for all shards so that they are one run: the merge checks that its blobs are the shards
// of one run, alike in target, writes, profile, suite and seed, each once (src/report/shards.ts), else it is ERROR.
// The merge exits with the verdict's code, as an unsharded run does: 0 PASS, 1 FAIL, 2 ERROR (the conformance reporter
// ends the process so; Playwright's own merge exits 0 whatever the verdict). RSF_FAIL_ON and RSF_BASELINE apply here,
// not in the shards. With GITHUB_STEP_SUMMARY set, conformance.md is appended to the job summary.
import { resolve } from 'node:path';
import { defineConfig } from '@playwright/test';
import { loadEnvFile, SETTINGS } from '../config/config';
import { SPEC_DIR } from '../report/model';

loadEnvFile();

const repoRoot = resolve(__dirname, '../..');
const reportsDir = resolve(repoRoot, process.env[SETTINGS.reportsDir.name]?.trim() || SETTINGS.reportsDir.default);

export default defineConfig({
  // merge-reports resolves test locations against testDir: it must be the testDir of playwright.config.ts.
  testDir: resolve(repoRoot, SPEC_DIR),
  reporter: [['./console-reporter.ts'], ['./conformance-reporter.ts', { outputDir: reportsDir, merge: true }]],
});
