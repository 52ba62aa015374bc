import { WRITES_OFF, bearerAuthTests, tags, test } from '../support/fixtures';

test.describe('DELETE /miCuenta/misProductos/{id} · operation 12 · §4.12', () => {
  test('deletes a product of the account', { tag: tags('OP12-DELETE-SUCCEEDS') }, async ({ api, conformance, config }) => {
    test.skip(!config.writesEnabled, WRITES_OFF);
    const exchange = await api.call('deleteProduct', { params: { id: config.deleteProductId } });
    await conformance.succeeds('OP12-DELETE-SUCCEEDS', exchange);
  });

  bearerAuthTests('deleteProduct', ({ config }) => ({ params: { id: config.deleteProductId } }));
});
