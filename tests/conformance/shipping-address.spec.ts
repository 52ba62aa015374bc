import { namesField } from '../../src/arbitraries';
import { BODY_RULES } from '../../src/model/body-rules';
import { requiredFields, without } from '../../src/model/bodies';
import {
  namesMissingField,
  negativeDataRejection,
  requirementCheck,
  succeeds,
  succeedsWithJson,
} from '../../src/checks/checks';
import { expect, test } from '../../src/playwright/fixtures';
import { jsonBody } from '../../src/http/exchange';
import { isObject } from '../../src/checks/outcome';
import { credentialProbes, probe, requestBodyProbes, updatedTwice } from '../../src/playwright/probes';

const missingData = { errorShape: 'OP2-MISSING-DATA-PLAIN-STRING' };
const addressSettings = ['addressFields', 'placeId'] as const;

test.describe('POST /miCuenta/shippingAddress · operation 2 · §4.2', () => {
  test(
    ...probe('creates an address with placeId', {
      operation: 'createShippingAddress',
      request: ({ bodies }) => ({ json: bodies.addressWithPlaceId() }),
      checks: [
        succeedsWithJson('OP2-SUCCESS-SHAPE'),
        requirementCheck('OP2-ADDRESS-ID-RETURNED', (exchange) => {
          const body = jsonBody(exchange);
          const addressId = isObject(body) ? body.addressId : undefined;
          expect(addressId, 'the new address id (§2.2: "returned on creation")').toEqual(expect.any(Number));
        }),
      ],
      settings: addressSettings,
    }),
  );

  test(
    ...probe('creates an address with provinceId and placeString instead of placeId', {
      operation: 'createShippingAddress',
      request: ({ bodies }) => ({ json: bodies.addressWithProvince() }),
      checks: [succeeds('OP2-PROVINCE-VARIANT-ACCEPTED')],
      settings: ['addressFields', 'provinceId', 'placeString'],
    }),
  );

  test(
    ...probe('refuses provinceId without placeString', {
      operation: 'createShippingAddress',
      request: ({ bodies }) => ({ json: without(bodies.addressWithProvince(), 'placeString') }),
      checks: [negativeDataRejection('OP2-PROVINCE-REQUIRES-PLACESTRING', missingData)],
    }),
  );

  test(
    ...probe('refuses an address with neither provinceId nor placeId, naming placeId', {
      operation: 'createShippingAddress',
      request: ({ bodies }) => ({ json: without(bodies.addressWithPlaceId(), 'placeId') }),
      checks: [
        negativeDataRejection('OP2-PLACEID-REQUIRED-WITHOUT-PROVINCE', missingData),
        namesMissingField('OP2-MISSING-PLACEID-NAMED', 'placeId', namesField),
      ],
    }),
  );

  for (const field of requiredFields('shipping-address-create.request')) {
    test(
      ...probe(`refuses an address without ${field.name}, naming it`, {
        operation: 'createShippingAddress',
        request: ({ bodies }) => ({ json: without(bodies.addressWithPlaceId(), field.name) }),
        checks: [
          negativeDataRejection('OP2-REQUIRED-FIELDS', missingData),
          namesMissingField('OP2-MISSING-FIELD-NAMED', field.name, namesField),
        ],
      }),
    );
  }

  for (const declaration of requestBodyProbes(BODY_RULES.createShippingAddress)) test(...declaration);
  const refusedCredentials = credentialProbes('createShippingAddress', {
    id: 'OP2-AUTH-REQUIRED',
    errorShape: 'OP2-AUTH-ERROR-BODY',
    request: ({ bodies }) => ({ json: bodies.addressWithPlaceId() }),
  });
  for (const declaration of refusedCredentials) test(...declaration);
});

test.describe('PATCH /miCuenta/shippingAddress · operation 3 · §4.3', () => {
  const rule = BODY_RULES.updateShippingAddress;

  test(
    ...probe('updates an existing address', {
      operation: 'updateShippingAddress',
      request: ({ bodies }) => ({ json: bodies.addressUpdate() }),
      checks: [succeedsWithJson('OP3-SUCCESS-SHAPE')],
      settings: ['addressId', ...addressSettings],
    }),
  );

  test(
    ...updatedTwice('answers the same update sent again, which changes nothing, with the same success', {
      operation: 'updateShippingAddress',
      request: ({ bodies }) => ({ json: bodies.addressUpdate() }),
      id: 'OP3-SUCCESS-SHAPE',
    }),
  );

  for (const declaration of requestBodyProbes(rule)) test(...declaration);
  const refusedCredentials = credentialProbes('updateShippingAddress', {
    id: 'OP3-AUTH-REQUIRED',
    errorShape: 'OP3-AUTH-ERROR-BODY',
    request: ({ bodies }) => ({ json: bodies.addressUpdate() }),
  });
  for (const declaration of refusedCredentials) test(...declaration);
});
