import { jsonUtf8, notApplicable, notRejected, requirementCheck, succeedsWithJson } from '../../src/checks/checks';
import { failure } from '../../src/checks/failure';
import { expect, test } from '../../src/playwright/fixtures';
import { jsonBody } from '../../src/http/exchange';
import { FINAL_PRICE_TOLERANCE, finalPriceProblem } from '../../src/checks/prices';
import { credentialProbes, probe } from '../../src/playwright/probes';

const underV1 = requirementCheck('GEN-V1-PREFIX', (exchange) => {
  expect([404, 405], 'the path under /v1 exists').not.toContain(exchange.status);
});

/** §2.7: every entry, not a sample; the list is one response. */
const finalPrices = requirementCheck('OP9-FINAL-PRICE', (exchange) => {
  const body = jsonBody(exchange);
  if (!Array.isArray(body) || body.length === 0) return notApplicable('the price list has no entries to check');
  const problems = body.flatMap((entry) => finalPriceProblem(entry) ?? []);
  if (problems.length === 0) return;
  const tolerance = `finalPrice = value × (1 + iva / 100), within ${JSON.stringify(FINAL_PRICE_TOLERANCE)}`;
  throw failure('Price entries with another final price', tolerance, problems.join('\n'));
});

test.describe('GET /prices · operation 9 · §4.9', () => {
  test(
    ...probe('lists prices as §2.7 entries, under /v1', {
      operation: 'listPrices',
      request: () => ({}),
      checks: [underV1, succeedsWithJson('OP9-SUCCESS-SHAPE'), jsonUtf8()],
    }),
  );

  test(
    ...probe('prices every entry at value × (1 + iva/100), within the stated tolerance', {
      operation: 'listPrices',
      request: () => ({}),
      checks: [finalPrices],
    }),
  );

  test(
    ...probe('takes the token under its scheme in lower case, bearer, as HTTP makes it case-insensitive', {
      operation: 'listPrices',
      request: () => ({ credentials: 'lowercase-scheme' }),
      // Refused, the scheme's case was not taken; a success off §2.7's shape is OP9-SUCCESS-SHAPE's to judge.
      checks: [notRejected('HTTP-AUTH-SCHEME-CASE', 'OP9-AUTH-ERROR-BODY')],
    }),
  );

  const refusedCredentials = credentialProbes('listPrices', {
    id: 'OP9-AUTH-REQUIRED',
    errorShape: 'OP9-AUTH-ERROR-BODY',
    request: () => ({}),
  });
  for (const declaration of refusedCredentials) test(...declaration);
});
