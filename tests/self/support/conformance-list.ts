// `playwright test --list --reporter=json` of the conformance suite, listed once per run of the self-tests
// (once-per-run.ts): several self-test files read it, in workers of their own, and each listing costs the start of a
// Playwright runner.
import { basename } from 'node:path';
import { runPlaywright } from './child-run';
import { oncePerRun } from './once-per-run';

/** Playwright's JSON report of a listing: suites of specs, each with its tests and their annotations. */
export interface ListedReport {
  suites: unknown[];
}

const LIST_TIMEOUT_MS = 60_000;

/** The conformance suite as `playwright test --list --reporter=json` gives it. */
export function listedConformanceSuite(): Promise<ListedReport> {
  return oncePerRun('conformance-list', LIST_TIMEOUT_MS, async () => {
    const run = await runPlaywright(['test', '--list', '--reporter=json'], {}, LIST_TIMEOUT_MS);
    if (run.code !== 0) throw new Error(`playwright test --list failed (exit ${run.code}):\n${run.stderr}`);
    return JSON.parse(run.stdout) as ListedReport;
  });
}

/** A conformance test as `playwright test --list` names it. */
export interface ListedTest {
  file: string;
  line: number;
  title: string;
  /** The titles of the describe blocks it is in, outermost first (the file's own suite left out). */
  describes: string[];
  /** Without the @. */
  tags: string[];
}

interface JsonSuite {
  title?: string;
  file?: string;
  specs?: { title: string; file: string; line: number; tags: string[] }[];
  suites?: JsonSuite[];
}

/** Every test of the conformance suite (playwright.config.ts), with its tags. */
export async function listConformanceTests(): Promise<ListedTest[]> {
  return testsOfListing(await listedConformanceSuite());
}

/** The tests of a listing, with their tags; `file` is the spec file's name. */
export function testsOfListing(listed: ListedReport): ListedTest[] {
  const tests: ListedTest[] = [];
  const walk = (suite: JsonSuite, describes: string[]): void => {
    for (const spec of suite.specs ?? []) tests.push({ ...spec, file: basename(spec.file), describes });
    for (const child of suite.suites ?? []) walk(child, [...describes, child.title ?? '']);
  };
  for (const suite of listed.suites as JsonSuite[]) walk(suite, []);
  return tests;
}
