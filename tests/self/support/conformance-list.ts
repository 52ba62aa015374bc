// `playwright test --list --reporter=json` of the conformance suite, listed once per run of the self-tests: several
// self-test files read it, in workers of their own, and each listing costs the start of a Playwright runner. The
// first caller lists and writes the JSON into the self-tests' output folder, which Playwright empties as a run
// starts; the others wait for that file.
import { closeSync, existsSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { test } from '../../../src/playwright/fixtures';
import { runPlaywright } from './child-run';

/** Playwright's JSON report of a listing: suites of specs, each with its tests and their annotations. */
export interface ListedReport {
  suites: unknown[];
}

const LIST_TIMEOUT_MS = 60_000;
const POLL_MS = 100;

/** What the listing left: the report, or why there is none. */
type Listing = { report: ListedReport } | { error: string };

async function list(): Promise<Listing> {
  const run = await runPlaywright(['test', '--list', '--reporter=json'], {}, LIST_TIMEOUT_MS);
  if (run.code !== 0) return { error: `playwright test --list failed (exit ${run.code}):\n${run.stderr}` };
  return { report: JSON.parse(run.stdout) as ListedReport };
}

/** The conformance suite as `playwright test --list --reporter=json` gives it. */
export async function listedConformanceSuite(): Promise<ListedReport> {
  const file = join(test.info().project.outputDir, 'conformance-list.json');
  let lock: number | undefined;
  try {
    lock = openSync(`${file}.lock`, 'wx');
  } catch {
    // Another worker lists, or has listed.
  }
  if (lock !== undefined) {
    const listing = await list();
    writeFileSync(`${file}.tmp`, JSON.stringify(listing));
    renameSync(`${file}.tmp`, file); // whole or not at all, for the workers waiting on it
    closeSync(lock);
  }
  for (let waited = 0; !existsSync(file); waited += POLL_MS) {
    if (waited > 2 * LIST_TIMEOUT_MS) throw new Error(`no listing of the conformance suite in ${file}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  const listing = JSON.parse(readFileSync(file, 'utf8')) as Listing;
  if ('error' in listing) throw new Error(listing.error);
  return listing.report;
}

/** A conformance test as `playwright test --list` names it. */
export interface ListedTest {
  file: string;
  line: number;
  title: string;
  /** Without the @. */
  tags: string[];
}

interface JsonSuite {
  file?: string;
  specs?: { title: string; file: string; line: number; tags: string[] }[];
  suites?: JsonSuite[];
}

/** Every test of the conformance suite (playwright.config.ts), with its tags. */
export async function listConformanceTests(): Promise<ListedTest[]> {
  const listed = await listedConformanceSuite();
  const tests: ListedTest[] = [];
  const walk = (suite: JsonSuite): void => {
    for (const spec of suite.specs ?? []) tests.push({ ...spec, file: basename(spec.file) });
    for (const child of suite.suites ?? []) walk(child);
  };
  for (const suite of listed.suites as JsonSuite[]) walk(suite);
  return tests;
}
