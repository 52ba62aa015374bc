import { succeeds } from '../../src/checks/checks';
import { test } from '../../src/playwright/fixtures';
import { credentialProbes, probe } from '../../src/playwright/probes';

test.describe('DELETE /miCuenta/misProductos/{id} · operation 12 · §4.12', () => {
  // In order in one worker, --fully-parallel or not: the deletion comes after the credential probes of its product.
  test.describe.configure({ mode: 'default' });
  // Before the deletion, on the product it deletes: once deleted, a product is refused as not found whatever the
  // target checks, and a request that deleted it without valid credentials would go unseen.
  const refusedCredentials = credentialProbes('deleteProduct', {
    id: 'OP12-AUTH-REQUIRED',
    request: ({ config }) => ({ params: { id: config.deleteProductId } }),
    mayConsume: 'deleteProductId',
  });
  for (const declaration of refusedCredentials) test(...declaration);

  test(
    ...probe('deletes a product of the account', {
      operation: 'deleteProduct',
      request: ({ config }) => ({ params: { id: config.deleteProductId } }),
      checks: [succeeds('OP12-DELETE-SUCCEEDS')],
      settings: ['deleteProductId', 'rejectionText'],
      consumes: 'deleteProductId',
    }),
  );
});
