import { BODY_RULES, VALID_WRITES } from '../../src/model/body-rules';
import type { Config } from '../../src/config/config';
import { negativeDataRejection, succeedsWithPlainString } from '../../src/checks/checks';
import { test } from '../../src/playwright/fixtures';
import { credentialProbes, probe, requestBodyProbes } from '../../src/playwright/probes';

const rule = BODY_RULES.updateCartItems;

test.describe('POST /carrito/item · operation 5 · §4.5', () => {
  test(
    ...probe('adds an item to the cart', {
      operation: 'updateCartItems',
      request: VALID_WRITES.updateCartItems,
      checks: [succeedsWithPlainString('OP5-SUCCESS-SHAPE')],
      settings: ['cartProductId', 'cartAmount', 'cartAllowedType', 'rejectionText'],
    }),
  );

  test(
    ...probe('refuses a product that does not exist', {
      operation: 'updateCartItems',
      request: ({ bodies, config }) => ({ json: [bodies.cartItem({ productId: config.missingProductId })] }),
      checks: [negativeDataRejection('OP5-UNKNOWN-PRODUCT')],
      settings: ['missingProductId', 'rejectionText'],
    }),
  );

  test(
    ...probe('refuses an item type that is not allowed', {
      operation: 'updateCartItems',
      request: ({ bodies, config }) => ({ json: [bodies.cartItem({ type: config.cartDisallowedType })] }),
      checks: [negativeDataRejection('OP5-TYPE-NOT-ALLOWED')],
      settings: ['cartDisallowedType', 'rejectionText'],
    }),
  );

  // A validator may look at the first item only: each bad item also comes after a valid one.
  const secondItems = [
    {
      what: 'a product that does not exist',
      id: 'OP5-UNKNOWN-PRODUCT',
      setting: 'missingProductId',
      bad: (config: Config) => ({ productId: config.missingProductId }),
    },
    {
      what: 'an item type that is not allowed',
      id: 'OP5-TYPE-NOT-ALLOWED',
      setting: 'cartDisallowedType',
      bad: (config: Config) => ({ type: config.cartDisallowedType }),
    },
  ] as const;
  for (const { what, id, setting, bad } of secondItems) {
    test(
      ...probe(`refuses ${what} in the second item of two`, {
        operation: 'updateCartItems',
        request: ({ bodies, config }) => ({ json: [bodies.cartItem(), bodies.cartItem(bad(config))] }),
        checks: [negativeDataRejection(id)],
        settings: [setting, 'rejectionText'],
      }),
    );
  }

  test(
    ...probe('refuses a body that is an object, not an array', {
      operation: 'updateCartItems',
      request: ({ bodies }) => ({ json: bodies.cartItem() }),
      checks: [negativeDataRejection('OP5-FIELD-TYPES')],
    }),
  );

  for (const declaration of requestBodyProbes(rule)) test(...declaration);
  const refusedCredentials = credentialProbes('updateCartItems', {
    id: 'OP5-AUTH-REQUIRED',
    request: ({ bodies }) => ({ json: [bodies.cartItem()] }),
  });
  for (const declaration of refusedCredentials) test(...declaration);
});
