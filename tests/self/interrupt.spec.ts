// Ctrl-C, or SIGTERM from a cancelled CI job: the run stops as Playwright stops it (exit 130), every report says
// ERROR (interrupted) instead of the verdict of what had run so far, and nothing is left in the temporary folder.
import { type AddressInfo, createServer } from 'node:net';
import { startReferenceServer } from '../../reference/server';
import { expect, test } from '../../src/playwright/fixtures';
import { foldersLeftBy, readReport, runSuiteIn } from './support/child-run';
import { startHostileTarget } from './support/hostile-server';

test.describe.configure({ mode: 'parallel' });

const RUN_TIMEOUT_MS = 60_000;

/** Resolves once `condition` holds: the moment the test sends its signal. */
function once(condition: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const poll = setInterval(() => {
      if (!condition()) return;
      clearInterval(poll);
      resolve();
    }, 20);
  });
}

test('Ctrl-C during the preflight: ERROR before any test ran, exit 130, nothing left behind', async () => {
  let connections = 0;
  const silent = createServer(() => connections++); // accepts, and never answers
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  try {
    const run = await runSuiteIn(
      'interrupt-preflight',
      { RSF_TARGET_URL: url, RSF_REQUEST_TIMEOUT_MS: String(RUN_TIMEOUT_MS) },
      [],
      RUN_TIMEOUT_MS,
      { interrupt: { signal: 'SIGINT', when: once(() => connections > 0) } },
    );
    expect(run.code, run.output).toBe(130);
    expect(run.verdict).toMatch(
      /^Conformance: ERROR — the run was interrupted \(Ctrl-C, or a signal\) before any test/,
    );
    expect(readReport(run.reportsDir).summary.verdict).toBe('ERROR');
    expect(foldersLeftBy(run.pid)).toEqual([]);
  } finally {
    silent.close();
  }
});

test('SIGTERM mid-run, as a cancelled CI job sends it: ERROR, tests cut short not failed, nothing left', async () => {
  const reference = await startReferenceServer();
  // Once 20 tests have passed, the signal goes, and every request from then on hangs: a test that waits on one is
  // interrupted, never answered.
  let passed = 0;
  const target = await startHostileTarget({ upstream: reference.url, misbehave: () => passed >= 20 });
  try {
    const run = await runSuiteIn(
      'interrupt-mid-run',
      {
        RSF_TARGET_URL: target.url,
        RSF_REQUEST_TIMEOUT_MS: String(RUN_TIMEOUT_MS),
        RSF_MAX_REQUESTS_PER_SECOND: '0',
      },
      [],
      RUN_TIMEOUT_MS,
      {
        onStdout: (stdout) => (passed = stdout.match(/^ {2}✓/gm)?.length ?? 0),
        interrupt: { signal: 'SIGTERM', when: once(() => passed >= 20) },
      },
    );
    expect(run.code, run.output).toBe(130);
    const interrupted =
      /^Conformance: ERROR — the run was interrupted \(Ctrl-C, or a signal\) with (\d+) of (\d+) tests/;
    expect(run.verdict).toMatch(interrupted);
    const [, unfinished, total] = interrupted.exec(run.verdict) ?? [];
    expect(Number(unfinished), 'the tests that passed before the signal are not among them').toBeLessThanOrEqual(
      Number(total) - 20,
    );
    expect(run.stdout, 'a test cut short is interrupted, not failed').not.toMatch(/^ {2}\d+ failed$/m);
    expect(readReport(run.reportsDir).summary.verdict).toBe('ERROR');
    expect(foldersLeftBy(run.pid)).toEqual([]);
  } finally {
    await target.close();
    await reference.close();
  }
});
