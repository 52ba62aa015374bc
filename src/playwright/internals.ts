// The one place that touches Playwright internals (README, "Playwright internals"). Playwright sets up and tears down
// its browser plumbing around every test, trace recording and context options, as steps that each capture a
// source-mapped stack: a quarter of a worker's CPU in a conformance run, which opens no browser context and refuses
// --trace (global-setup.ts). Two underscore fixtures of Playwright's are replaced by ones that do nothing. Were they
// renamed, the replacements would do nothing unnoticed and the plumbing would cost its time again:
// tests/self/internals.spec.ts fails loudly when Playwright no longer defines them.
import { test as base } from '@playwright/test';

/** Playwright's own fixtures replaced here, by name. */
export const REPLACED_PLAYWRIGHT_FIXTURES = ['_setupArtifacts', '_setupContextOptions'] as const;

/** Playwright's options for those fixtures; a replacement must keep their `auto` mode. */
const PLAYWRIGHT_PLUMBING = { auto: 'all-hooks-included' as unknown as true, box: 'self' } as const;

/** `test` without Playwright's browser plumbing; fixtures.ts builds on it. */
export const testWithoutBrowserPlumbing = base.extend<{ _setupArtifacts: void; _setupContextOptions: void }>({
  _setupArtifacts: [async ({}, use) => use(), PLAYWRIGHT_PLUMBING],
  _setupContextOptions: [async ({}, use) => use(), PLAYWRIGHT_PLUMBING],
});
