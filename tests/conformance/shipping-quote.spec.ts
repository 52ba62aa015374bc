import { bearerAuthTests, tags, test, INVALID_INPUT_IDS } from '../support/fixtures';

test.describe('GET /carrito/calcularEnvioPara/{codigoPostalFavorito}/{direccionCompleta} · operation 7 · §4.7', () => {
  test('quotes the shipping to a valid full address', { tag: tags('OP7-SUCCESS-SHAPE', 'GEN-JSON-CONTENT-TYPE') }, async ({ api, conformance, config }) => {
    const exchange = await api.call('quoteShipping', { params: { codigoPostalFavorito: config.shippingPostalCode, direccionCompleta: config.shippingAddressValid } });
    await conformance.succeedsWithJson('OP7-SUCCESS-SHAPE', exchange);
  });

  test('refuses a full address that is not valid, with a plain string', { tag: tags('OP7-INVALID-ADDRESS', ...INVALID_INPUT_IDS, 'OP7-ERROR-SHAPE') }, async ({ api, conformance, config }) => {
    const exchange = await api.call('quoteShipping', { params: { codigoPostalFavorito: config.shippingPostalCode, direccionCompleta: config.shippingAddressInvalid } });
    await conformance.negativeDataRejection('OP7-INVALID-ADDRESS', exchange, 'OP7-ERROR-SHAPE');
  });

  bearerAuthTests('quoteShipping', ({ config }) => ({ params: { codigoPostalFavorito: config.shippingPostalCode, direccionCompleta: config.shippingAddressValid } }));
});
