// Issue 23 item 5: a target whose API sits under a base path. RSF_TARGET_URL with the prefix (and trailing slashes,
// with or without /v1) is judged like any target; a URL whose path leads to no API stops at the preflight with an
// ERROR that names RSF_TARGET_URL and what the target answered.
import { expect, test } from '../../src/playwright/fixtures';
import { runSuiteIn } from './support/child-run';
import { referenceForThisFile } from './support/file-reference';
import { type HostileTarget, mountedAt, startHostileTarget } from './support/hostile-server';

test.describe.configure({ mode: 'parallel' });

const PREFIX = '/api/storefront';
const { secrets, server: reference } = referenceForThisFile();

/** Runs the read-only part of the suite against a gateway that mounts the reference at PREFIX. */
async function againstGateway(path: string): Promise<{ code: number | null; output: string; verdict: string }> {
  const gateway: HostileTarget = await startHostileTarget({ upstream: reference().url, misbehave: mountedAt(PREFIX) });
  try {
    return await runSuiteIn(
      'base-path',
      { RSF_TARGET_URL: `${gateway.url}${path}`, RSF_BEARER_TOKEN: secrets.bearer, RSF_CHANNEL_TOKEN: secrets.channel },
      ['tests/conformance/prices.spec.ts', 'product-detail.spec.ts'],
      120_000,
    );
  } finally {
    await gateway.close();
  }
}

for (const path of [PREFIX, `${PREFIX}/`, `${PREFIX}/v1/`]) {
  test(`RSF_TARGET_URL with the base path, as ${path.replace(PREFIX, '<prefix>')}: PASS`, async () => {
    test.setTimeout(150_000);
    const run = await againstGateway(path);
    expect(run.verdict, run.output.slice(-3000)).toMatch(/^Conformance: PASS — /);
    expect(run.code).toBe(0);
  });
}

// The gateway's own 404 without the prefix; the API's 404 for /v2/v1/prices under it.
for (const [what, path, answer] of [
  ['without the prefix', '', '\\{"message":"no route"'],
  ['with /v2 after the prefix', `${PREFIX}/v2`, '"no such operation"[\\s\\S]*this suite tests /v1'],
] as const) {
  test(`RSF_TARGET_URL ${what}: ERROR at the preflight naming RSF_TARGET_URL and the answer`, async () => {
    test.setTimeout(150_000);
    const run = await againstGateway(path);
    expect(run.code, run.output.slice(-3000)).toBe(2);
    expect(run.verdict).toMatch(/^Conformance: ERROR — Preflight failed/);
    expect(run.output).toMatch(
      new RegExp(
        `RSF_TARGET_URL=http://127\\.0\\.0\\.1:\\d+${path} leads to no API: ` +
          `the target answered HTTP 404: ${answer}`,
      ),
    );
    expect(run.output, 'no test ran').not.toMatch(/^\s*\d+ (passed|failed)/m);
  });
}
