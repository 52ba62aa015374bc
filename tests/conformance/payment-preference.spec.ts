import { WRITES_OFF, malformedJsonTest, requestBodyTests, tags, test } from '../support/fixtures';

const errorShape = { id: 'OP6-ERROR-SHAPE', schemas: ['payment-preference.error'] };

test.describe('POST /carrito/processPreferenceProvider · operation 6 · §4.6', () => {
  test('creates a payment preference without an Authorization header', { tag: tags('OP6-SUCCESS-SHAPE', 'OP6-NO-AUTH-HEADER', 'GEN-JSON-CONTENT-TYPE') }, async ({ api, conformance, bodies, config }) => {
    test.skip(!config.writesEnabled, WRITES_OFF);
    const exchange = await api.call('createPaymentPreference', { json: bodies.paymentPreference(), credentials: 'none' });
    await conformance.succeeds('OP6-NO-AUTH-HEADER', exchange);
    await conformance.succeeds('OP6-SUCCESS-SHAPE', exchange);
    await conformance.jsonContentType(exchange);
  });

  requestBodyTests('createPaymentPreference', {
    schema: 'payment-preference.request',
    valid: ({ bodies }) => bodies.paymentPreference(),
    required: { id: 'OP6-REQUIRED-FIELDS', errorShape },
    types: { id: 'OP6-FIELD-TYPES', errorShape },
  });
  malformedJsonTest('createPaymentPreference');
});
