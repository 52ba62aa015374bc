import { jsonUtf8, succeedsWithJson } from '../../src/checks/checks';
import { test } from '../../src/playwright/fixtures';
import { credentialProbes, probe } from '../../src/playwright/probes';

test.describe('GET /paymentVoucher/{branch}-{order} · operation 10 · §4.10', () => {
  test(
    ...probe('returns a payment voucher addressed as {branch}-{order}', {
      operation: 'getPaymentVoucher',
      request: ({ config }) => ({ params: { branch: config.voucherBranch, order: config.voucherOrder } }),
      checks: [succeedsWithJson('OP10-SUCCESS-SHAPE'), jsonUtf8()],
    }),
  );

  const refusedCredentials = credentialProbes('getPaymentVoucher', {
    id: 'OP10-AUTH-REQUIRED',
    request: ({ config }) => ({ params: { branch: config.voucherBranch, order: config.voucherOrder } }),
  });
  for (const declaration of refusedCredentials) test(...declaration);
});
