// Issue 23 item 5: a target whose API sits under a base path. RSF_TARGET_URL with the prefix (and trailing slashes,
// with or without /v1) is judged like any target; a URL whose path leads to no API stops at the preflight with an
// ERROR that names RSF_TARGET_URL and what the target answered.
import { loadConfig } from '../../src/config/config';
import { apiBase } from '../../src/config/target';
import { expect, test } from '../../src/playwright/fixtures';
import { runSuiteIn } from './support/child-run';
import { preflightMessage } from './support/preflight-message';
import { referenceForThisFile } from './support/file-reference';
import { type HostileTarget, mountedAt, startHostileTarget } from './support/hostile-server';

test.describe.configure({ mode: 'parallel' });

const PREFIX = '/api/storefront';
const { secrets, server: reference } = referenceForThisFile();

/** Starts a gateway that mounts the reference at PREFIX, hands its URL to `use`, and closes it. */
async function withGateway<T>(use: (url: string) => Promise<T>): Promise<T> {
  const gateway: HostileTarget = await startHostileTarget({ upstream: reference().url, misbehave: mountedAt(PREFIX) });
  try {
    return await use(gateway.url);
  } finally {
    await gateway.close();
  }
}

const FORMS = [PREFIX, `${PREFIX}/`, `${PREFIX}/v1/`];

test('RSF_TARGET_URL with the base path, with or without a slash or /v1/: one API base', () => {
  const bases = FORMS.map((path) => apiBase(loadConfig({ RSF_TARGET_URL: `http://127.0.0.1:8080${path}` })));
  expect(bases).toEqual(FORMS.map(() => `http://127.0.0.1:8080${PREFIX}/v1`));
});

test('RSF_TARGET_URL with the base path, as <prefix>/v1/: the read-only part of the suite, PASS', async () => {
  test.setTimeout(150_000);
  const run = await withGateway((url) =>
    runSuiteIn(
      'base-path',
      { RSF_TARGET_URL: `${url}${PREFIX}/v1/`, RSF_BEARER_TOKEN: secrets.bearer, RSF_CHANNEL_TOKEN: secrets.channel },
      ['tests/conformance/prices.spec.ts', 'product-detail.spec.ts'],
      120_000,
    ),
  );
  expect(run.verdict, run.output.slice(-3000)).toMatch(/^Conformance: PASS — /);
  expect(run.code).toBe(0);
});

// The gateway's own 404 without the prefix; the API's 404 for /v2/v1/prices under it. The run stops at the preflight
// with its message (preflight.spec.ts shows how a run says it). Only a version other than /v1 is named as a cause:
// a URL that ends in /v1 is the form the suite takes with or without it.
for (const [what, path, answer, namesTheVersion] of [
  ['without the prefix', '', '\\{"message":"no route"', false],
  ['with /v1 but without the prefix', '/v1/', '\\{"message":"no route"', false],
  ['with /v2 after the prefix', `${PREFIX}/v2`, '"no such operation"', true],
  // A URL pasted from a request: named, with the base URL that ends before its /v1.
  ["ending in an operation's path", `${PREFIX}/v1/miCuenta/pedidos/1/123`, '"no such operation"', false],
] as const) {
  test(`RSF_TARGET_URL ${what}: the preflight fails, naming RSF_TARGET_URL and the answer`, async () => {
    const message = await withGateway((url) =>
      preflightMessage({ RSF_TARGET_URL: `${url}${path}`, RSF_BEARER_TOKEN: secrets.bearer }),
    );
    expect(message).toMatch(
      new RegExp(
        `RSF_TARGET_URL=http://127\\.0\\.0\\.1:\\d+${path} leads to no API: ` +
          `the target answered HTTP 404: ${answer}`,
      ),
    );
    expect(message.includes('It ends in another version: this suite tests /v1.')).toBe(namesTheVersion);
    expect(message.includes("It holds an operation's path after /v1 (/v1/miCuenta/pedidos/1/123): the base URL")).toBe(
      path.endsWith('/123'),
    );
    if (path.endsWith('/123'))
      expect(message).toMatch(new RegExp(`ends before it, http://127\\.0\\.0\\.1:\\d+${PREFIX}\\.`));
    expect(message, 'the price list is not served without /v1 either').not.toContain('GEN-V1-PREFIX');
  });
}
