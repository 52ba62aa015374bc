import { bearerAuthTests, tags, test } from '../support/fixtures';

test.describe('GET /miCuenta/pedidos/{branch}/{albNumber} · operation 11 · §4.11', () => {
  test('returns an order', { tag: tags('OP11-SUCCESS-SHAPE', 'GEN-JSON-CONTENT-TYPE') }, async ({ api, conformance, config }) => {
    const exchange = await api.call('getOrder', { params: { branch: config.orderBranch, albNumber: config.orderAlbNumber } });
    await conformance.succeedsWithJson('OP11-SUCCESS-SHAPE', exchange);
  });

  bearerAuthTests('getOrder', ({ config }) => ({ params: { branch: config.orderBranch, albNumber: config.orderAlbNumber } }));
});
