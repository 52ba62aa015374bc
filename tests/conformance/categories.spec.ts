import { BODY_RULES } from '../../src/model/body-rules';
import { negativeDataRejection, notRejected, succeedsWithJson } from '../../src/checks/checks';
import { test } from '../../src/playwright/fixtures';
import { credentialProbes, probe, requestBodyProbes, updatedTwice } from '../../src/playwright/probes';

const rule = BODY_RULES.updateCategory;

test.describe('PATCH /miCuenta/misCategorias · operation 4 · §4.4', () => {
  test(
    ...probe('updates an existing category', {
      operation: 'updateCategory',
      request: ({ bodies }) => ({ json: bodies.categoryUpdate() }),
      checks: [succeedsWithJson('OP4-SUCCESS-SHAPE')],
      settings: ['categoryId', 'categoryFields'],
    }),
  );

  test(
    ...updatedTwice('answers the same update sent again, which changes nothing, with the same success', {
      operation: 'updateCategory',
      request: ({ bodies }) => ({ json: bodies.categoryUpdate() }),
      id: 'OP4-SUCCESS-SHAPE',
    }),
  );

  // Right after the update, while the category holds the values they send: a "nothing changed" shortcut taken before
  // the credentials are checked answers them as a success.
  const refusedCredentials = credentialProbes('updateCategory', {
    id: 'OP4-AUTH-REQUIRED',
    errorShape: 'OP4-AUTH-ERROR-BODY',
    request: ({ bodies }) => ({ json: bodies.categoryUpdate() }),
  });
  for (const declaration of refusedCredentials) test(...declaration);

  test(
    ...probe('accepts utility at the limit of 100', {
      operation: 'updateCategory',
      request: ({ bodies }) => ({ json: bodies.categoryUpdate(100) }),
      checks: [notRejected('OP4-UTILITY-MAX', 'OP4-ERROR-SHAPE')],
      settings: ['categoryId', 'categoryFields'],
    }),
  );

  test(
    ...probe('refuses utility just above 100', {
      operation: 'updateCategory',
      request: ({ bodies }) => ({ json: bodies.categoryUpdate(100.01) }),
      checks: [negativeDataRejection('OP4-UTILITY-MAX', { errorShape: 'OP4-ERROR-SHAPE' })],
    }),
  );

  test(
    ...probe('refuses a category that does not exist', {
      operation: 'updateCategory',
      request: ({ bodies, config }) => ({ json: { ...bodies.categoryUpdate(), categoryId: config.missingCategoryId } }),
      checks: [negativeDataRejection('OP4-UNKNOWN-CATEGORY', { errorShape: 'OP4-ERROR-SHAPE' })],
      settings: ['missingCategoryId'],
    }),
  );

  for (const declaration of requestBodyProbes(rule)) test(...declaration);
});
