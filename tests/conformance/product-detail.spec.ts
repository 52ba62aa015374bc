import {
  documentedErrorShape,
  errorContentType,
  jsonContentType,
  jsonUtf8,
  matchesSchema,
  rejects,
  requirementCheck,
  worksWithoutCredentials,
} from '../../src/checks/checks';
import { expect, test } from '../../src/playwright/fixtures';
import { probe, unacceptedTokenProbes } from '../../src/playwright/probes';
import {
  LOGGED_IN_FIELDS,
  anonymousCartProblem,
  asProduct,
  descriptionTypeProblem,
  loggedInDataIn,
} from '../../src/checks/stock';
import { jsonBody } from '../../src/http/exchange';
import type { RequestContext } from '../../src/playwright/declarations';

const product = ({ config }: RequestContext, productId: string | number = config.productId) => ({
  params: { product_id: productId },
  query: config.productDetailQuery,
});

const successShape = matchesSchema('OP8-SUCCESS-SHAPE', 'product.response');

test.describe('GET /item/{product_id} · operation 8 · §4.8', () => {
  test(
    ...probe('returns the product to an anonymous caller, without logged-in data', {
      operation: 'getProduct',
      request: (ctx) => ({ ...product(ctx), credentials: 'none' }),
      checks: [
        worksWithoutCredentials('OP8-TOKEN-OPTIONAL'),
        successShape,
        jsonContentType(),
        requirementCheck('OP8-ANONYMOUS-NO-LOGGED-IN-FIELDS', (exchange) => {
          const sent = loggedInDataIn(asProduct(jsonBody(exchange)));
          expect(sent, 'logged-in fields with data, sent to an anonymous caller').toEqual([]);
        }),
        requirementCheck('OP8-ANONYMOUS-NO-CART', (exchange) => {
          const problem = anonymousCartProblem(asProduct(jsonBody(exchange)));
          expect(problem, 'a cart shown to an anonymous caller').toBeUndefined();
        }),
      ],
      settings: ['productId', 'productDetailQuery'],
    }),
  );

  test(
    ...probe('returns the product with the logged-in fields to a logged-in caller', {
      operation: 'getProduct',
      request: (ctx) => ({ ...product(ctx), credentials: 'valid' }),
      checks: [
        successShape,
        jsonUtf8(),
        requirementCheck('OP8-LOGGED-IN-FIELDS', (exchange) => {
          const body = asProduct(jsonBody(exchange));
          expect(
            LOGGED_IN_FIELDS.filter((f) => !(f in body)),
            'logged-in fields missing for a logged-in caller',
          ).toEqual([]);
        }),
        requirementCheck('OP8-DESCRIPTION-MEDIA-TYPE', (exchange) => {
          const problem = descriptionTypeProblem(asProduct(jsonBody(exchange)));
          expect(problem, 'a media type (type/subtype), as text/plain in the sample').toBeUndefined();
        }),
      ],
      settings: ['productId', 'productDetailQuery'],
    }),
  );

  // Every near miss and other scheme too: a helper of its own reads the optional token (a prefix, the last word).
  const noLoggedInData = requirementCheck('OP8-INVALID-TOKEN-NO-LOGGED-IN-FIELDS', (exchange) => {
    const sent = loggedInDataIn(asProduct(jsonBody(exchange)));
    expect(sent, 'logged-in fields with data, sent for a token that is not accepted').toEqual([]);
  });
  for (const declaration of unacceptedTokenProbes('getProduct', noLoggedInData, product)) test(...declaration);

  test(
    ...probe('refuses a product that does not exist, with a plain string', {
      operation: 'getProduct',
      request: (ctx) => ({ ...product(ctx, ctx.config.missingProductId), credentials: 'valid' }),
      checks: [rejects('OP8-UNKNOWN-PRODUCT'), errorContentType(), documentedErrorShape('OP8-ERROR-SHAPE')],
      settings: ['missingProductId'],
    }),
  );
});
