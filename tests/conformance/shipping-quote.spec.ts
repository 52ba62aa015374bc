import { negativeDataRejection, succeedsWithJson } from '../../src/checks/checks';
import { test } from '../../src/playwright/fixtures';
import { credentialProbes, probe } from '../../src/playwright/probes';

const OPERATION_7 = 'GET /carrito/calcularEnvioPara/{codigoPostalFavorito}/{direccionCompleta} · operation 7 · §4.7';

test.describe(OPERATION_7, () => {
  test(
    ...probe('quotes the shipping to a valid full address', {
      operation: 'quoteShipping',
      request: ({ config }) => ({
        params: { codigoPostalFavorito: config.shippingPostalCode, direccionCompleta: config.shippingAddressValid },
      }),
      checks: [succeedsWithJson('OP7-SUCCESS-SHAPE')],
      settings: ['shippingPostalCode', 'shippingAddressValid'],
    }),
  );

  test(
    ...probe('refuses a full address that is not valid, with a plain string', {
      operation: 'quoteShipping',
      request: ({ config }) => ({
        params: { codigoPostalFavorito: config.shippingPostalCode, direccionCompleta: config.shippingAddressInvalid },
      }),
      checks: [negativeDataRejection('OP7-INVALID-ADDRESS', { errorShape: 'OP7-ERROR-SHAPE' })],
      settings: ['shippingAddressInvalid'],
    }),
  );

  const refusedCredentials = credentialProbes('quoteShipping', {
    id: 'OP7-AUTH-REQUIRED',
    request: ({ config }) => ({
      params: { codigoPostalFavorito: config.shippingPostalCode, direccionCompleta: config.shippingAddressValid },
    }),
  });
  for (const declaration of refusedCredentials) test(...declaration);
});
