// A reference server shared by the tests of one self-test file, with made-up secrets that the leak searches look for.
import { type ReferenceServer, startReferenceServer } from '../../../reference/server';
import { test } from '../../../src/playwright/fixtures';
import { fakeSecrets } from './child-run';

/** Starts the server before the file's tests and closes it after them; `server()` is it, once started. */
export function referenceForThisFile(): { secrets: ReturnType<typeof fakeSecrets>; server: () => ReferenceServer } {
  const secrets = fakeSecrets();
  let started: ReferenceServer | undefined;
  test.beforeAll(async () => {
    started = await startReferenceServer({ bearerToken: secrets.bearer, channelToken: secrets.channel });
  });
  test.afterAll(async () => {
    await started?.close();
  });
  const server = (): ReferenceServer => {
    if (!started) throw new Error('the reference server starts in beforeAll: use it inside a test');
    return started;
  };
  return { secrets, server };
}
