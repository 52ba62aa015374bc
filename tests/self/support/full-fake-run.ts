// The fake reporter-suite's full run with its defaults, once per run of the self-tests: the reporter's tests, the HTML
// report's and the sharded fake run's (its unsharded run) read the same run, each in a worker of its own, and a full
// fake run costs a runner and four workers.
import { join } from 'node:path';
import { test } from '../../../src/playwright/fixtures';
import { FAKE_RUN_TIMEOUT_MS, type FakeRun, fakeRunIn, runFakeSuite } from './child-run';
import { oncePerRun } from './once-per-run';

/** `runFakeSuite` with its defaults: no waivers, fresh secrets, every test of the fake suite. */
export async function fullFakeRun(): Promise<FakeRun> {
  const outDir = join(test.info().project.outputDir, 'full-fake-run');
  const { secrets, ...run } = await oncePerRun('full-fake-run', FAKE_RUN_TIMEOUT_MS, async () => {
    const { startedAt, code, stdout, stderr, secrets } = await runFakeSuite(outDir);
    return { startedAt, code, stdout, stderr, secrets };
  });
  return fakeRunIn(outDir, run, secrets);
}
