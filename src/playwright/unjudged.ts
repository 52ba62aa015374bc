// A test that cannot be judged ends as skipped, with a typed annotation the conformance reporter reads: never as a
// failure, because throttling and outages say nothing about conformance (and a failure would cost a worker restart).
import { type TestInfo, test } from '@playwright/test';
import { INCONCLUSIVE_ANNOTATION, INTERRUPTED_ANNOTATION, NOT_RUN_ANNOTATION } from '../checks/check-protocol';

/** Thrown inside Playwright's skip: lets `Conformance.verify` and the property runner tell it from a check failure. */
export function isUnjudged(): boolean {
  return test.info().expectedStatus === 'skipped';
}

/** Skips the test, with the annotation the conformance reporter reads and the reason Playwright shows. */
function stopAs(type: string, kind: string, reason: string): never {
  test.info().annotations.push({ type, description: reason });
  test.skip(true, `${kind}: ${reason}`);
  throw new Error('unreachable: test.skip throws');
}

/** Every attempt was throttled, or one request got no answer: the requirements not yet judged are inconclusive. */
export const stopAsInconclusive = (reason: string): never => stopAs(INCONCLUSIVE_ANNOTATION, 'inconclusive', reason);

/** The run's circuit breaker is open: nothing more is sent, and the test is reported "not run". */
export const stopAsNotRun = (reason: string): never => stopAs(NOT_RUN_ANNOTATION, 'not run', reason);

/** The run was interrupted (Ctrl-C, or a signal) while the test waited on a request: reported as interrupted. */
export const stopAsInterrupted = (reason: string): never => stopAs(INTERRUPTED_ANNOTATION, 'interrupted', reason);

/**
 * Skips again, for code that caught the runner's skip (fast-check treats a throw inside a property as a failure):
 * the test ends as skipped, with the reason already recorded.
 */
export function resumeSkip(): void {
  if (!isUnjudged()) return;
  test.skip(true, notJudgedAnnotation(test.info().annotations)?.description ?? 'not judged');
}

/** Why the test was not judged: its last inconclusive or not-run annotation, if any. */
function notJudgedAnnotation(annotations: TestInfo['annotations']): TestInfo['annotations'][number] | undefined {
  return annotations.filter((a) => a.type === INCONCLUSIVE_ANNOTATION || a.type === NOT_RUN_ANNOTATION).at(-1);
}

/**
 * After the test, when `--reporter` replaced the suite's verdict (replaced-reporters.ts): a test skipped as not judged
 * fails, with its reason, so that Playwright's exit code is not 0 for a run the suite's reporter would call ERROR.
 */
export function failIfNotJudged(testInfo: Pick<TestInfo, 'annotations'>): void {
  const reason = notJudgedAnnotation(testInfo.annotations);
  if (!reason) return;
  const kind = reason.type === INCONCLUSIVE_ANNOTATION ? 'inconclusive' : 'not run';
  throw new Error(
    `${kind}: ${reason.description ?? ''}\n` +
      "Not judged: with the suite's reporters this run would end in ERROR (exit 2); --reporter replaced them, so " +
      'this test fails instead of passing as skipped.',
  );
}
