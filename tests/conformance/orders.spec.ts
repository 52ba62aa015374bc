import { jsonUtf8, succeedsWithJson } from '../../src/checks/checks';
import { test } from '../../src/playwright/fixtures';
import { credentialProbes, probe } from '../../src/playwright/probes';

test.describe('GET /miCuenta/pedidos/{branch}/{albNumber} · operation 11 · §4.11', () => {
  test(
    ...probe('returns an order', {
      operation: 'getOrder',
      request: ({ config }) => ({ params: { branch: config.orderBranch, albNumber: config.orderAlbNumber } }),
      checks: [succeedsWithJson('OP11-SUCCESS-SHAPE'), jsonUtf8()],
    }),
  );

  const refusedCredentials = credentialProbes('getOrder', {
    id: 'OP11-AUTH-REQUIRED',
    request: ({ config }) => ({ params: { branch: config.orderBranch, albNumber: config.orderAlbNumber } }),
  });
  for (const declaration of refusedCredentials) test(...declaration);
});
