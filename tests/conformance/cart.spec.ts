import { MAY_BE_CARRIED_OUT, WRITES_OFF, refusalMayBeCarriedOut, bearerAuthTests, malformedJsonTest, requestBodyTests, tags, test, INVALID_INPUT_IDS } from '../support/fixtures';

test.describe('POST /carrito/item · operation 5 · §4.5', () => {
  test('adds an item to the cart', { tag: tags('OP5-SUCCESS-SHAPE') }, async ({ api, conformance, bodies, config }) => {
    test.skip(!config.writesEnabled, WRITES_OFF);
    const exchange = await api.call('updateCartItems', { json: [bodies.cartItem()] });
    await conformance.succeeds('OP5-SUCCESS-SHAPE', exchange);
  });

  test('refuses a product that does not exist', { tag: tags('OP5-UNKNOWN-PRODUCT', ...INVALID_INPUT_IDS) }, async ({ api, conformance, bodies, config }) => {
    const exchange = await api.call('updateCartItems', { json: [bodies.cartItem({ productId: config.missingProductId })] });
    await conformance.negativeDataRejection('OP5-UNKNOWN-PRODUCT', exchange);
  });

  test('refuses an item type that is not allowed', { tag: tags('OP5-TYPE-NOT-ALLOWED', ...INVALID_INPUT_IDS) }, async ({ api, conformance, bodies, config }) => {
    const exchange = await api.call('updateCartItems', { json: [bodies.cartItem({ type: config.cartDisallowedType })] });
    await conformance.negativeDataRejection('OP5-TYPE-NOT-ALLOWED', exchange);
  });

  test('refuses a body that is an object, not an array', { tag: tags('OP5-FIELD-TYPES', ...INVALID_INPUT_IDS) }, async ({ api, conformance, bodies, config }) => {
    test.skip(refusalMayBeCarriedOut(config, 'OP5-FIELD-TYPES', 'updateCartItems'), MAY_BE_CARRIED_OUT);
    const exchange = await api.call('updateCartItems', { json: bodies.cartItem() });
    await conformance.negativeDataRejection('OP5-FIELD-TYPES', exchange);
  });

  requestBodyTests('updateCartItems', {
    schema: 'cart-items.request',
    valid: ({ bodies }) => bodies.cartItem(),
    send: (item) => ({ json: [item] }),
    required: { id: 'OP5-REQUIRED-FIELDS' },
    types: { id: 'OP5-FIELD-TYPES' },
  });
  malformedJsonTest('updateCartItems');
  bearerAuthTests('updateCartItems', ({ bodies }) => ({ json: [bodies.cartItem()] }));
});
