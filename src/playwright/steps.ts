// A check and a request are Playwright steps only where a reporter may show them. A step costs its worker two
// messages to the runner: without the 1,935 steps of an embedded run (1,499 checks, 436 requests), it took 4.95 s of
// CPU instead of 5.13 s, 3.77 s instead of 3.86 s (medians of 10, alternating). The suite's own reporters show none:
// its reports are made of the checks' annotations and attachments; nor do Playwright's dot, line and list. The plan
// reporter, one of the suite's, notes it. Playwright's UI mode and the VS Code extension run none of them (their
// runner reports to its own client), nor does a run whose --reporter replaced them: there, every check and request
// is a step, as before.
import { resolve } from 'node:path';
import { type Location, test } from '@playwright/test';
import type { FullConfig } from '@playwright/test/reporter';

/** Set in the runner before any worker starts, which inherits it: no reporter of this run shows a step. */
export const STEPS_UNSEEN_ENV = 'RSF_STEPS_UNSEEN';

/**
 * The suite's reporters (playwright.config.ts), Playwright's blob of a shard (merged by the suite's reporters), and
 * Playwright's reporters that print no step: list prints them only when asked (PLAYWRIGHT_LIST_PRINT_STEPS).
 */
const STEPLESS_REPORTERS = new Set([
  ...['plan-reporter', 'console-reporter', 'conformance-reporter'].map((name) => resolve(__dirname, name)),
  ...['blob', 'dot', 'line', 'junit', 'github', 'null'],
  ...(process.env.PLAYWRIGHT_LIST_PRINT_STEPS ? [] : ['list']),
]);

/** Whether no reporter of `reporters` (FullConfig's: names resolved to paths) shows a step. */
export function stepsUnseenBy(reporters: FullConfig['reporter']): boolean {
  return reporters.every(([name]) => STEPLESS_REPORTERS.has(name.replace(/\.[cm]?[jt]s$/, '')));
}

/**
 * For the plan reporter's onBegin, which Playwright calls after the global setup and before it starts a worker: in UI
 * mode no reporter of the configuration begins, nor does it under a --reporter, and every check stays a step.
 */
export function noteStepsUnseen(config: Pick<FullConfig, 'reporter'>): void {
  if (stepsUnseenBy(config.reporter)) process.env[STEPS_UNSEEN_ENV] = '1';
}

/** Runs `body` as a step titled `title` at `location`, or just runs it when no reporter would show the step. */
export function asStep<T>(title: string, body: () => Promise<T>, location: Location): Promise<T> {
  return process.env[STEPS_UNSEEN_ENV] === '1' ? body() : test.step(title, body, { location });
}
