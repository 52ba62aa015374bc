import { bearerAuthTests, tags, test } from '../support/fixtures';

test.describe('GET /paymentVoucher/{branch}-{order} · operation 10 · §4.10', () => {
  test('returns a payment voucher addressed as {branch}-{order}', { tag: tags('OP10-SUCCESS-SHAPE', 'GEN-JSON-CONTENT-TYPE') }, async ({ api, conformance, config }) => {
    const exchange = await api.call('getPaymentVoucher', { params: { branch: config.voucherBranch, order: config.voucherOrder } });
    await conformance.succeedsWithJson('OP10-SUCCESS-SHAPE', exchange);
  });

  bearerAuthTests('getPaymentVoucher', ({ config }) => ({ params: { branch: config.voucherBranch, order: config.voucherOrder } }));
});
