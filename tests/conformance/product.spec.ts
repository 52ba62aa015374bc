import { LOGGED_IN_FIELDS, asProduct, expect, jsonBody, loggedInDataIn, tags, test } from '../support/fixtures';

test.describe('GET /item/{product_id} · operation 8 · §4.8', () => {
  test('returns the product to an anonymous caller, without logged-in data', { tag: tags('OP8-TOKEN-OPTIONAL', 'OP8-SUCCESS-SHAPE', 'GEN-JSON-CONTENT-TYPE', 'OP8-ANONYMOUS-NO-LOGGED-IN-FIELDS') }, async ({ api, conformance, config }) => {
    const request = { params: { product_id: config.productId }, query: config.productDetailQuery };
    const exchange = await api.call('getProduct', { ...request, credentials: 'none' });
    await conformance.worksWithoutCredentials('OP8-TOKEN-OPTIONAL', exchange, () => api.call('getProduct', { ...request, credentials: 'valid' }));
    await conformance.matchesSchema('OP8-SUCCESS-SHAPE', exchange, 'product.response');
    await conformance.jsonContentType(exchange);
    await conformance.verify('OP8-ANONYMOUS-NO-LOGGED-IN-FIELDS', exchange, () => {
      expect(loggedInDataIn(asProduct(jsonBody(exchange))), 'logged-in fields with data, sent to an anonymous caller').toEqual([]);
    });
  });

  test('returns the product with the logged-in fields to a logged-in caller', { tag: tags('OP8-SUCCESS-SHAPE', 'OP8-LOGGED-IN-FIELDS') }, async ({ api, conformance, config }) => {
    const exchange = await api.call('getProduct', { params: { product_id: config.productId }, query: config.productDetailQuery, credentials: 'valid' });
    await conformance.matchesSchema('OP8-SUCCESS-SHAPE', exchange, 'product.response');
    await conformance.verify('OP8-LOGGED-IN-FIELDS', exchange, () => {
      const product = asProduct(jsonBody(exchange));
      expect(LOGGED_IN_FIELDS.filter((f) => !(f in product)), 'logged-in fields missing for a logged-in caller').toEqual([]);
    });
  });

  test('gives no logged-in data to a caller whose token is not accepted', { tag: tags('OP8-INVALID-TOKEN-NO-LOGGED-IN-FIELDS') }, async ({ api, conformance, config }) => {
    const exchange = await api.call('getProduct', { params: { product_id: config.productId }, query: config.productDetailQuery, credentials: 'unknown-token' });
    await conformance.verify('OP8-INVALID-TOKEN-NO-LOGGED-IN-FIELDS', exchange, () => {
      const product = asProduct(jsonBody(exchange));
      expect(loggedInDataIn(product), 'logged-in fields with data, sent for a token that is not accepted').toEqual([]);
    });
  });

  test('refuses a product that does not exist, with a plain string', { tag: tags('OP8-UNKNOWN-PRODUCT', 'OP8-ERROR-SHAPE', 'GEN-ERROR-CONTENT-TYPE') }, async ({ api, conformance, config }) => {
    const exchange = await api.call('getProduct', { params: { product_id: config.missingProductId }, query: config.productDetailQuery, credentials: 'valid' });
    await conformance.rejects('OP8-UNKNOWN-PRODUCT', exchange);
    await conformance.errorContentType(exchange);
    await conformance.documentedErrorShape('OP8-ERROR-SHAPE', exchange);
  });
});
