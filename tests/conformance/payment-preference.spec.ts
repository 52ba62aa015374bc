import { BODY_RULES } from '../../src/model/body-rules';
import { succeedsWithJson, worksWithoutCredentials } from '../../src/checks/checks';
import { test } from '../../src/playwright/fixtures';
import { probe, requestBodyProbes } from '../../src/playwright/probes';

const rule = BODY_RULES.createPaymentPreference;

test.describe('POST /carrito/processPreferenceProvider · operation 6 · §4.6', () => {
  test(
    ...probe('creates a payment preference without an Authorization header', {
      operation: 'createPaymentPreference',
      request: ({ bodies }) => ({ json: bodies.paymentPreference(), credentials: 'none' }),
      checks: [worksWithoutCredentials('OP6-NO-AUTH-HEADER'), succeedsWithJson('OP6-SUCCESS-SHAPE')],
      settings: ['paymentPreferenceBody'],
    }),
  );

  for (const declaration of requestBodyProbes(rule)) test(...declaration);
});
