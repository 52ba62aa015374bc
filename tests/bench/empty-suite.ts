// Playwright alone: a suite of empty tests shaped like the conformance suite (its spec files, as many tests in each),
// run as the suite runs against the embedded reference (its number of workers, Playwright's browser plumbing left out
// as internals.ts leaves it out). What it takes is Playwright's own cost of running that many tests, which no work of
// the suite's can go below; the full run's time above it is the suite's: its requests, checks, steps and recording.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { runPlaywright } from '../self/support/child-run';
import { type ListedReport, testsOfListing } from '../self/support/conformance-list';
import { REPO_ROOT } from './measure';

/** A spec file of the suite and its number of tests. */
export interface SpecShape {
  file: string;
  tests: number;
}

const LIST_TIMEOUT_MS = 60_000;

/** The conformance suite's spec files and their test counts, from `playwright test --list --reporter=json`. */
export async function suiteShape(): Promise<SpecShape[]> {
  const run = await runPlaywright(['test', '--list', '--reporter=json'], {}, LIST_TIMEOUT_MS);
  if (run.code !== 0)
    throw new Error(`playwright test --list --reporter=json failed (exit ${run.code}):\n${run.stderr}`);
  const counts = new Map<string, number>();
  for (const { file } of testsOfListing(JSON.parse(run.stdout) as ListedReport))
    counts.set(file, (counts.get(file) ?? 0) + 1);
  return [...counts].map(([file, tests]) => ({ file, tests }));
}

/**
 * Writes the empty suite into `dir` (inside the repository, where `@playwright/test` resolves) and returns its
 * config's path. Each file has the suite's file's name and number of tests, each test an empty body; the run has
 * `workers` workers, as the full run had.
 */
export function writeEmptySuite(dir: string, shape: SpecShape[], workers: number): string {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const internals = relative(dir, join(REPO_ROOT, 'src/playwright/internals')).split('\\').join('/');
  for (const { file, tests } of shape) {
    const lines = [`import { testWithoutBrowserPlumbing as test } from '${internals}';`];
    for (let i = 1; i <= tests; i++) lines.push(`test('empty test ${i}', async () => {});`);
    writeFileSync(join(dir, file), `${lines.join('\n')}\n`);
  }
  const config = join(dir, 'playwright.config.ts');
  writeFileSync(
    config,
    [
      "import { defineConfig } from '@playwright/test';",
      `export default defineConfig({ testDir: '.', outputDir: './results', workers: ${workers}, reporter: 'dot' });`,
      '',
    ].join('\n'),
  );
  return config;
}
