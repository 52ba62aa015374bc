import { WRITES_OFF, malformedJsonTest, requestBodyTests, tags, test } from '../support/fixtures';

const errorShape = 'OP6-ERROR-SHAPE';

test.describe('POST /carrito/processPreferenceProvider · operation 6 · §4.6', () => {
  test('creates a payment preference without an Authorization header', { tag: tags('OP6-SUCCESS-SHAPE', 'OP6-NO-AUTH-HEADER', 'GEN-JSON-CONTENT-TYPE') }, async ({ api, conformance, bodies, config }) => {
    test.skip(!config.writesEnabled, WRITES_OFF);
    const request = { json: bodies.paymentPreference() };
    const exchange = await api.call('createPaymentPreference', { ...request, credentials: 'none' });
    await conformance.worksWithoutCredentials('OP6-NO-AUTH-HEADER', exchange, () => api.call('createPaymentPreference', { ...request, credentials: 'valid' }));
    await conformance.succeedsWithJson('OP6-SUCCESS-SHAPE', exchange);
  });

  requestBodyTests('createPaymentPreference', {
    schema: 'payment-preference.request',
    valid: ({ bodies }) => bodies.paymentPreference(),
    required: { id: 'OP6-REQUIRED-FIELDS', errorShape },
    types: { id: 'OP6-FIELD-TYPES', errorShape },
  });
  malformedJsonTest('createPaymentPreference');
});
