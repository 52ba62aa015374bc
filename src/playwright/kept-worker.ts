// Playwright replaces its worker after every test that fails unexpectedly, which made a run against a target that
// fails many checks take 13 times as long as a clean one. A test failed by a requirement is therefore marked as
// expected to fail once it has failed (testInfo.fail, public); the console reporter (console-reporter.ts) and the
// conformance reports read the status, which stays "failed", and show it as the failure it is.
import type { TestInfo } from '@playwright/test';
import { parseCheckAnnotation } from '../checks/check-protocol';

export const KEPT_WORKER = 'marked expected so that Playwright keeps its worker';

/** The requirements whose checks failed in a test, from its check annotations (a TestInfo, or a TestResult). */
export function failedRequirements(test: { annotations: readonly { type: string; description?: string }[] }): string[] {
  return test.annotations.flatMap((a) => {
    const check = parseCheckAnnotation(a);
    return check?.outcome === 'failed' ? [check.id] : [];
  });
}

/**
 * After the test: if a requirement failed it, marks the failure expected, so that Playwright keeps the worker. Not
 * under --max-failures (-x): Playwright stops the run after the failures it counts, and counts none marked expected.
 */
export function keepWorkerAfterRequirementFailure(testInfo: TestInfo): void {
  if (testInfo.config.maxFailures > 0) return;
  const failed = failedRequirements(testInfo);
  if (testInfo.status === 'failed' && failed.length > 0)
    testInfo.fail(true, `${failed.join(', ')} failed; ${KEPT_WORKER}`);
}
