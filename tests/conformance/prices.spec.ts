import { bearerAuthTests, expect, tags, test } from '../support/fixtures';

test.describe('GET /prices · operation 9 · §4.9', () => {
  test('lists prices as §2.7 entries, under /v1', { tag: tags('GEN-V1-PREFIX', 'OP9-SUCCESS-SHAPE', 'GEN-JSON-CONTENT-TYPE') }, async ({ api, conformance }) => {
    const exchange = await api.call('listPrices');
    await conformance.verify('GEN-V1-PREFIX', exchange, () => {
      expect([404, 405], 'the path under /v1 exists').not.toContain(exchange.status);
    });
    await conformance.succeedsWithJson('OP9-SUCCESS-SHAPE', exchange);
  });

  bearerAuthTests('listPrices', () => ({}), 'OP9-AUTH-ERROR-BODY');
});
