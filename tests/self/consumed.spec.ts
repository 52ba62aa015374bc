// A resource of the settings that the run uses up (src/playwright/consumed.ts): RSF_DELETE_PRODUCT_ID. The credential
// probes of operation 12 reach the target while the product is there, before its deletion: against a target that
// deletes without credentials and deletes once, as a real store does, a probe sent after the deletion would be
// refused as not found, and OP12-AUTH-REQUIRED would pass. The mutation matrix cannot show it: its round of a fault
// runs only the tests of the requirement the fault breaks, so not the deletion.
import { expect, test } from '../../src/playwright/fixtures';
import { readReport, runSuiteIn } from './support/child-run';

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
