import { MAY_BE_CARRIED_OUT, WRITES_OFF, bearerAuthTests, malformedJsonTest, refusalMayBeCarriedOut, requestBodyTests, tags, test, INVALID_INPUT_IDS } from '../support/fixtures';

const errorShape = 'OP1-ERROR-SHAPE';

test.describe('PATCH /client · operation 1 · §4.1', () => {
  test('updates the client with the eleven required fields', { tag: tags('OP1-SUCCESS-SHAPE', 'GEN-JSON-CONTENT-TYPE') }, async ({ api, conformance, bodies, config }) => {
    test.skip(!config.writesEnabled, WRITES_OFF);
    const exchange = await api.call('updateClient', { json: bodies.client() });
    await conformance.succeedsWithJson('OP1-SUCCESS-SHAPE', exchange);
  });

  test('accepts the optional secondaryPhone and clientWebsite', { tag: tags('OP1-OPTIONAL-FIELDS') }, async ({ api, conformance, bodies, config }) => {
    test.skip(!config.writesEnabled, WRITES_OFF);
    const exchange = await api.call('updateClient', { json: bodies.clientWithOptionalFields() });
    await conformance.succeeds('OP1-OPTIONAL-FIELDS', exchange);
  });

  test('refuses a clientWebsite that is not a URI', { tag: tags('OP1-WEBSITE-URI', ...INVALID_INPUT_IDS, errorShape) }, async ({ api, conformance, bodies, config }) => {
    test.skip(refusalMayBeCarriedOut(config, 'OP1-WEBSITE-URI', 'updateClient'), MAY_BE_CARRIED_OUT);
    const exchange = await api.call('updateClient', { json: { ...bodies.client(), clientWebsite: 'not a uri' } });
    await conformance.negativeDataRejection('OP1-WEBSITE-URI', exchange, errorShape);
  });

  requestBodyTests('updateClient', {
    schema: 'client.request',
    valid: ({ bodies }) => bodies.client(),
    required: { id: 'OP1-REQUIRED-FIELDS', errorShape },
    types: { id: 'OP1-FIELD-TYPES', errorShape },
  });
  malformedJsonTest('updateClient');
  bearerAuthTests('updateClient', ({ bodies }) => ({ json: bodies.client() }));
});
