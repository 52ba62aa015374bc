// `npm run bench`'s runs that need per-test timings: the conformance suite exactly as playwright.config.ts runs it,
// with the timing reporter added just before the conformance reporter (which must stay last).
import { resolve } from 'node:path';
import { defineConfig, type ReporterDescription } from '@playwright/test';
import base from '../../playwright.config';
import { SPEC_DIR } from '../../src/report/model';

const ROOT = resolve(__dirname, '../..');
/** The base config's paths are relative to the repository root; this file lives two folders down. */
const fromRoot = (path: string): string => (path.startsWith('.') || path.includes('/') ? resolve(ROOT, path) : path);

/** Reporter files and the folders they write to, resolved as they are from the root config. */
function rooted([name, options]: ReporterDescription): ReporterDescription {
  const folders = ['outputFolder', 'outputDir', 'folder'];
  const entries = Object.entries((options ?? {}) as Record<string, unknown>);
  // A folder is relative to the root even without a slash (`reports`, the default of RSF_REPORTS_DIR).
  const fixed = entries.map(([k, v]) => [k, folders.includes(k) && typeof v === 'string' ? resolve(ROOT, v) : v]);
  return options === undefined ? [fromRoot(name)] : [fromRoot(name), Object.fromEntries(fixed)];
}

const reporters = ((base.reporter ?? []) as ReporterDescription[]).map(rooted);
const timing: ReporterDescription = [resolve(__dirname, 'timing-reporter.ts')];

export default defineConfig({
  ...base,
  testDir: resolve(ROOT, SPEC_DIR),
  outputDir: resolve(ROOT, 'test-results/bench'),
  globalSetup: resolve(ROOT, 'src/playwright/global-setup.ts'),
  reporter: [...reporters.slice(0, -1), timing, ...reporters.slice(-1)],
});
