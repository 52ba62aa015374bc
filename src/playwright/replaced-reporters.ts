// `--reporter` on the command line replaces the reporters of playwright.config.ts, the suite's verdict among them:
// the exit code is then Playwright's own. A test failed by a requirement is marked expected once it has failed, to
// keep its worker (kept-worker.ts), and a test that could not be judged is skipped (unjudged.ts): both would count as
// passed, and a run that is FAIL or ERROR would exit 0. So that it never does, such a run marks nothing expected, and
// fails each test it could not judge.
import type { FullConfig } from '@playwright/test';

/** Set by the global setup in the runner, before any worker starts: the workers inherit it. */
export const REPORTERS_REPLACED_ENV = 'RSF_REPORTERS_REPLACED';

/**
 * The reporters of a run that keep no verdict, or undefined when one does: the suite's conformance reporter
 * (`keepsVerdict`), or a blob, whose merge judges the run (a shard).
 */
export function replacingReporters(
  fullConfig: Pick<FullConfig, 'reporter'>,
  keepsVerdict: (name: string) => boolean,
): string[] | undefined {
  const names = fullConfig.reporter.map(([name]) => name);
  return names.some((name) => name === 'blob' || keepsVerdict(name)) ? undefined : names;
}

/** Whether this run's reporters were replaced, as the global setup found (replacingReporters). */
export function reportersReplaced(): boolean {
  return process.env[REPORTERS_REPLACED_ENV] === '1';
}

/** What the runner says once, before any test, when the reporters were replaced. */
export function replacedReportersNotice(names: readonly string[]): string {
  return (
    `--reporter=${names.join(',')} replaces the suite's reporters: no verdict line and no reports/, and the exit ` +
    "code is Playwright's. So that a FAIL or ERROR run does not exit 0, a test failed by a requirement fails as " +
    'Playwright counts it (its worker is replaced: slower), and a test that could not be judged fails too. ' +
    'For JUnit, use reports/junit.xml of a run without --reporter.\n'
  );
}
