import { WRITES_OFF, bearerAuthTests, malformedJsonTest, requestBodyTests, tags, test, INVALID_INPUT_IDS } from '../support/fixtures';

const errorShape = 'OP4-ERROR-SHAPE';
const invalidBodyShape = 'OP4-INVALID-BODY-ERROR-SHAPE';

test.describe('PATCH /miCuenta/misCategorias · operation 4 · §4.4', () => {
  test('updates an existing category', { tag: tags('OP4-SUCCESS-SHAPE', 'GEN-JSON-CONTENT-TYPE') }, async ({ api, conformance, bodies, config }) => {
    test.skip(!config.writesEnabled, WRITES_OFF);
    const exchange = await api.call('updateCategory', { json: bodies.categoryUpdate() });
    await conformance.succeedsWithJson('OP4-SUCCESS-SHAPE', exchange);
  });

  test('accepts utility at the limit of 100', { tag: tags('OP4-UTILITY-MAX') }, async ({ api, conformance, bodies, config }) => {
    test.skip(!config.writesEnabled, WRITES_OFF);
    const exchange = await api.call('updateCategory', { json: bodies.categoryUpdate(100) });
    await conformance.succeeds('OP4-UTILITY-MAX', exchange);
  });

  test('refuses utility just above 100', { tag: tags('OP4-UTILITY-MAX', ...INVALID_INPUT_IDS, errorShape) }, async ({ api, conformance, bodies }) => {
    const exchange = await api.call('updateCategory', { json: bodies.categoryUpdate(100.01) });
    await conformance.negativeDataRejection('OP4-UTILITY-MAX', exchange, errorShape);
  });

  test('refuses a category that does not exist', { tag: tags('OP4-UNKNOWN-CATEGORY', ...INVALID_INPUT_IDS, errorShape) }, async ({ api, conformance, bodies, config }) => {
    const exchange = await api.call('updateCategory', { json: { ...bodies.categoryUpdate(), categoryId: config.missingCategoryId } });
    await conformance.negativeDataRejection('OP4-UNKNOWN-CATEGORY', exchange, errorShape);
  });

  requestBodyTests('updateCategory', {
    schema: 'category-update.request',
    valid: ({ bodies }) => bodies.categoryUpdate(),
    required: { id: 'OP4-REQUIRED-FIELDS', errorShape: invalidBodyShape },
    types: { id: 'OP4-FIELD-TYPES', errorShape: invalidBodyShape },
  });
  malformedJsonTest('updateCategory');
  bearerAuthTests('updateCategory', ({ bodies }) => ({ json: bodies.categoryUpdate() }), 'OP4-AUTH-ERROR-BODY');
});
