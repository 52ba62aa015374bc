// A reference server shared by the tests of one self-test file that a worker runs, with made-up secrets that the leak
// searches look for.
//
// Started by a beforeEach, never a beforeAll: Playwright splits a parallel-mode file that has beforeAll or afterAll
// hooks into one fixed chunk of tests per worker (createTestGroups, "parallelWithHooks"), so one worker drew all of
// hostile-targets.spec.ts's long child runs in a row, 198 s of npm test's 201. Without them each test is a group of
// its own, handed to the next free worker. The server stops as its worker exits.
import { type ReferenceServer, startReferenceServer } from '../../../reference/server';
import { test } from '../../../src/playwright/fixtures';
import { fakeSecrets } from './child-run';

/**
 * Starts the server before the first of the file's tests in this worker; `server()` is it, once started, and
 * `serverStarted()` starts it first if need be: for a describe's beforeAll, which runs before any beforeEach.
 */
export function referenceForThisFile(): {
  secrets: ReturnType<typeof fakeSecrets>;
  server: () => ReferenceServer;
  serverStarted: () => Promise<ReferenceServer>;
} {
  const secrets = fakeSecrets();
  let starting: Promise<ReferenceServer> | undefined;
  let started: ReferenceServer | undefined;
  const serverStarted = async (): Promise<ReferenceServer> => {
    starting ??= startReferenceServer({ bearerToken: secrets.bearer, channelToken: secrets.channel });
    started = await starting;
    return started;
  };
  test.beforeEach(async () => {
    await serverStarted();
  });
  const server = (): ReferenceServer => {
    if (!started) throw new Error('the reference server starts in beforeEach: use it inside a test');
    return started;
  };
  return { secrets, server, serverStarted };
}
