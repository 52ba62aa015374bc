import { WRITES_OFF, bearerAuthTests, expect, isObject, jsonBody, malformedJsonTest, namesField, plainString, requestBodyTests, requiredFields, tags, test, without, INVALID_INPUT_IDS } from '../support/fixtures';

const missingDataShape = 'OP2-MISSING-DATA-PLAIN-STRING';

test.describe('POST /miCuenta/shippingAddress · operation 2 · §4.2', () => {
  test('creates an address with placeId', { tag: tags('OP2-SUCCESS-SHAPE', 'GEN-JSON-CONTENT-TYPE', 'OP2-ADDRESS-ID-RETURNED') }, async ({ api, conformance, bodies, config }) => {
    test.skip(!config.writesEnabled, WRITES_OFF);
    const exchange = await api.call('createShippingAddress', { json: bodies.addressWithPlaceId() });
    await conformance.succeedsWithJson('OP2-SUCCESS-SHAPE', exchange);
    await conformance.verify('OP2-ADDRESS-ID-RETURNED', exchange, () => {
      const body = jsonBody(exchange);
      expect(isObject(body) ? body.addressId : undefined, 'the new address id (§2.2: "returned on creation")').toEqual(expect.any(Number));
    });
  });

  test('creates an address with provinceId and placeString instead of placeId', { tag: tags('OP2-PROVINCE-VARIANT-ACCEPTED') }, async ({ api, conformance, bodies, config }) => {
    test.skip(!config.writesEnabled, WRITES_OFF);
    const exchange = await api.call('createShippingAddress', { json: bodies.addressWithProvince() });
    await conformance.succeeds('OP2-PROVINCE-VARIANT-ACCEPTED', exchange);
  });

  test('refuses provinceId without placeString', { tag: tags('OP2-PROVINCE-REQUIRES-PLACESTRING', ...INVALID_INPUT_IDS, missingDataShape) }, async ({ api, conformance, bodies }) => {
    const exchange = await api.call('createShippingAddress', { json: without(bodies.addressWithProvince(), 'placeString') });
    await conformance.negativeDataRejection('OP2-PROVINCE-REQUIRES-PLACESTRING', exchange, missingDataShape);
  });

  test('refuses an address with neither provinceId nor placeId, naming placeId', { tag: tags('OP2-PLACEID-REQUIRED-WITHOUT-PROVINCE', ...INVALID_INPUT_IDS, missingDataShape, 'OP2-MISSING-PLACEID-NAMED') }, async ({ api, conformance, bodies }) => {
    const exchange = await api.call('createShippingAddress', { json: without(bodies.addressWithPlaceId(), 'placeId') });
    await conformance.negativeDataRejection('OP2-PLACEID-REQUIRED-WITHOUT-PROVINCE', exchange, missingDataShape);
    await conformance.verify('OP2-MISSING-PLACEID-NAMED', exchange, () => {
      const text = plainString(exchange.body) ?? '';
      expect(namesField(text, 'placeId'), `the error names placeId (§4.2): ${JSON.stringify(text)}`).toBe(true);
    });
  });

  for (const field of requiredFields('shipping-address-create.request')) {
    test(`refuses an address without ${field.name}, naming it`, { tag: tags('OP2-REQUIRED-FIELDS', ...INVALID_INPUT_IDS, missingDataShape, 'OP2-MISSING-FIELD-NAMED') }, async ({ api, conformance, bodies }) => {
      const exchange = await api.call('createShippingAddress', { json: without(bodies.addressWithPlaceId(), field.name) });
      await conformance.negativeDataRejection('OP2-REQUIRED-FIELDS', exchange, missingDataShape);
      await conformance.verify('OP2-MISSING-FIELD-NAMED', exchange, () => {
        const text = plainString(exchange.body) ?? '';
        expect(namesField(text, field.name), `the error names ${field.name} (§4.2): ${JSON.stringify(text)}`).toBe(true);
      });
    });
  }

  requestBodyTests('createShippingAddress', {
    schema: 'shipping-address-create.request',
    valid: ({ bodies }) => bodies.addressWithPlaceId(),
    types: { id: 'OP2-FIELD-TYPES' },
  });
  malformedJsonTest('createShippingAddress');
  bearerAuthTests('createShippingAddress', ({ bodies }) => ({ json: bodies.addressWithPlaceId() }), 'OP2-AUTH-ERROR-BODY');
});

test.describe('PATCH /miCuenta/shippingAddress · operation 3 · §4.3', () => {
  const errorShape = 'OP3-ERROR-SHAPE';

  test('updates an existing address', { tag: tags('OP3-SUCCESS-SHAPE', 'GEN-JSON-CONTENT-TYPE') }, async ({ api, conformance, bodies, config }) => {
    test.skip(!config.writesEnabled, WRITES_OFF);
    const exchange = await api.call('updateShippingAddress', { json: bodies.addressUpdate() });
    await conformance.succeedsWithJson('OP3-SUCCESS-SHAPE', exchange);
  });

  requestBodyTests('updateShippingAddress', {
    schema: 'shipping-address-update.request',
    valid: ({ bodies }) => bodies.addressUpdate(),
    required: { id: 'OP3-REQUIRED-FIELDS', errorShape },
    types: { id: 'OP3-FIELD-TYPES', errorShape },
  });
  malformedJsonTest('updateShippingAddress');
  bearerAuthTests('updateShippingAddress', ({ bodies }) => ({ json: bodies.addressUpdate() }), 'OP3-AUTH-ERROR-BODY');
});
