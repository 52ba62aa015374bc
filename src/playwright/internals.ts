// The one place that touches Playwright internals (README, "Playwright internals"). Two of them.
//
// 1. Playwright sets up and tears down its browser plumbing around every test, trace recording and context options,
// as steps that each capture a source-mapped stack: a quarter of a worker's CPU in a conformance run, which opens no
// browser context and refuses --trace (global-setup.ts). Two underscore fixtures of Playwright's are replaced by ones
// that do nothing. Were they renamed, the replacements would do nothing unnoticed and the plumbing would cost its
// time again: tests/self/internals.spec.ts fails loudly when Playwright no longer defines them.
import { readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { type FullConfig, test as base } from '@playwright/test';

/** Playwright's own fixtures replaced here, by name. */
export const REPLACED_PLAYWRIGHT_FIXTURES = ['_setupArtifacts', '_setupContextOptions'] as const;

/** Playwright's options for those fixtures; a replacement must keep their `auto` mode. */
const PLAYWRIGHT_PLUMBING = { auto: 'all-hooks-included' as unknown as true, box: 'self' } as const;

/** `test` without Playwright's browser plumbing; fixtures.ts builds on it. */
export const testWithoutBrowserPlumbing = base.extend<{ _setupArtifacts: void; _setupContextOptions: void }>({
  _setupArtifacts: [async ({}, use) => use(), PLAYWRIGHT_PLUMBING],
  _setupContextOptions: [async ({}, use) => use(), PLAYWRIGHT_PLUMBING],
});

// 2. `--last-failed` runs again the tests that Playwright's own reporter wrote into `.last-run.json`: those that did
// not end as expected. A test failed by a requirement is marked expected once it has failed, to keep its worker
// (kept-worker.ts), and a test not judged is skipped, so neither was among them, and `--last-failed` after a FAIL
// run found no test. The conformance reporter adds them, in onExit, after every reporter's onEnd. The file's place
// and shape are Playwright's: tests/self/internals.spec.ts fails loudly when --last-failed no longer runs them again.

/** Where Playwright keeps the last run: `--last-failed-file`, PLAYWRIGHT_LAST_RUN_OUTPUT_FILE, or its output folder. */
export function lastRunFile(config: Pick<FullConfig, 'projects'>, argv: readonly string[]): string | undefined {
  const at = argv.findIndex((arg) => arg === '--last-failed-file' || arg.startsWith('--last-failed-file='));
  const option = at === -1 ? undefined : (argv[at] as string);
  const named = option?.includes('=') ? option.slice(option.indexOf('=') + 1) : option && argv[at + 1];
  const file = named || process.env.PLAYWRIGHT_LAST_RUN_OUTPUT_FILE;
  if (file) return isAbsolute(file) ? file : resolve(process.cwd(), file);
  const [project] = config.projects;
  return project && join(project.outputDir, '.last-run.json');
}

/** Adds `testIds` to the tests Playwright's last run lists as failed; nothing when it wrote no file (`--list`). */
export function addToLastFailed(file: string, testIds: readonly string[]): void {
  let lastRun: { failedTests?: string[] };
  try {
    lastRun = JSON.parse(readFileSync(file, 'utf8')) as { failedTests?: string[] };
  } catch {
    return;
  }
  const failedTests = [...new Set([...(lastRun.failedTests ?? []), ...testIds])];
  writeFileSync(file, JSON.stringify({ ...lastRun, failedTests }, undefined, 2));
}
