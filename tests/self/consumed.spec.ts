// A resource of the settings that the run uses up (src/playwright/consumed.ts): RSF_DELETE_PRODUCT_ID. The credential
// probes of operation 12 reach the target while the product is there, before its deletion: against a target that
// deletes without credentials and deletes once, as a real store does, a probe sent after the deletion would be
// refused as not found, and OP12-AUTH-REQUIRED would pass. The mutation matrix cannot show it: its round of a fault
// runs only the tests of the requirement the fault breaks, so not the deletion. An external target keeps what a run
// deleted: the next run with the same reports folder knows it, and does not blame the target for refusing it again.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startReferenceServer } from '../../reference/server';
import { expect, test } from '../../src/playwright/fixtures';
import { CONSUMED_FILE } from '../../src/playwright/consumed';
import { readReport, runPlaywright, runSuiteIn } from './support/child-run';
import { scratchDir } from './support/scratch';

test('a target deleting without credentials, once: OP12-AUTH-REQUIRED fails, the deletion is unjudged', async () => {
  const run = await runSuiteIn(
    'consumed',
    { RSF_REFERENCE_FAULT: 'op12-auth-not-required-deletes-once' },
    ['account-products.spec.ts'],
    90_000,
  );
  expect(run.code, run.output).toBe(1);
  const status = (id: string) => readReport(run.reportsDir).requirements.find((r) => r.id === id);
  expect(status('OP12-AUTH-REQUIRED')?.status, run.output).toBe('failed');
  // Deleted by the first probe the target should have refused: the deletion with the token finds nothing to delete.
  expect(status('OP12-DELETE-SUCCEEDS')).toMatchObject({
    status: 'inconclusive',
    reason: expect.stringMatching(
      new RegExp(
        '^RSF_DELETE_PRODUCT_ID was used up earlier in this run by DELETE http://127\\.0\\.0\\.1:\\d+/_faults/' +
          'op12-auth-not-required-deletes-once/v1/miCuenta/misProductos/2001 with(out)? .+ \\(HTTP 204\\), ' +
          'which the target should have refused',
      ),
    ),
  });
  expect(run.verdict).toMatch(
    /^Conformance: FAIL — 1 MUST requirement failed; could not judge: 1 MUST requirement inconclusive \(OP12-DELETE/,
  );
});

test('RSF_DELETE_PRODUCT_ID deleted by an earlier run at an external target: now refused, unjudged', async () => {
  // The reference's deployment mode deletes once, as a real store does.
  const reference = await startReferenceServer();
  const reportsDir = join(scratchDir('consumed-earlier'), 'reports');
  const run = () =>
    runPlaywright(
      ['test', 'account-products.spec.ts'],
      {
        RSF_TARGET_URL: `${reference.url}/_modes/deployment`,
        RSF_ALLOW_WRITES: 'true',
        RSF_MAX_REQUESTS_PER_SECOND: '0',
        RSF_REPORTS_DIR: reportsDir,
      },
      90_000,
    );
  try {
    const first = await run();
    expect(first.code, first.stdout).toBe(0);
    expect(existsSync(join(reportsDir, CONSUMED_FILE))).toBe(true);
    const second = await run();
    expect(second.code, second.stdout).toBe(2);
    expect(readReport(reportsDir).requirements.find((r) => r.id === 'OP12-DELETE-SUCCEEDS')).toMatchObject({
      status: 'inconclusive',
      reason: expect.stringMatching(
        new RegExp(
          '^RSF_DELETE_PRODUCT_ID was used up by an earlier run against this target \\(DELETE ' +
            'http://127\\.0\\.0\\.1:\\d+/_modes/deployment/v1/miCuenta/misProductos/2001 \\(HTTP 200\\), ' +
            'at \\d{4}-[^)]+\\), and a conforming ' +
            'target refuses it since: the refusal cannot be judged',
        ),
      ),
    });
  } finally {
    await reference.close();
  }
});

test('the product deleted with the token under another scheme, which the target takes: judged on that', async () => {
  // indep113: Rails takes "Token <token>" as "Bearer <token>". That warns (HTTP-AUTH-BEARER-ONLY, a SHOULD), and the
  // deletion with the token, refused as not found after it, was inconclusive: the run ended in ERROR.
  const run = await runSuiteIn(
    'consumed-scheme',
    { RSF_REFERENCE_FAULT: 'token-scheme-taken' },
    ['account-products.spec.ts'],
    90_000,
  );
  const status = (id: string) => readReport(run.reportsDir).requirements.find((r) => r.id === id)?.status;
  const statuses = [status('HTTP-AUTH-BEARER-ONLY'), status('OP12-DELETE-SUCCEEDS')];
  expect(statuses, run.output).toEqual(['warning', 'passed']);
  expect(run.code, run.output).toBe(0);
});
