// Property probes (issue 5): rules that hold for every input of a kind, checked over generated inputs. They run the
// same checks as the example tests (checks.ts), each requirement as one fc.check inside one conformance.verify
// (property.ts), so a SHOULD property warns and a MUST property fails. '@property' is a label tag.
import {
  type AddressCase,
  addressCase,
  badCartItems,
  bodyWithFieldDropped,
  bodyWithFieldRetyped,
  categoryUpdateWithUtility,
  channelMessageBody,
  everyAddressCase,
  everyFieldDropped,
  everyStockProbe,
  namesField,
  stockProbe,
  utilityAbove100,
  validCategoryUpdate,
} from '../../src/arbitraries';
import { BODY_RULES, bodyRequest, channelParams } from '../../src/model/body-rules';
import {
  type Check,
  documentedErrorShape,
  namesMissingField,
  notApplicable,
  rejects,
  requirementCheck,
  succeeds,
} from '../../src/checks/checks';
import { failure } from '../../src/checks/failure';
import { test } from '../../src/playwright/fixtures';
import { type Exchange, jsonBody } from '../../src/http/exchange';
import { OPERATIONS, type OperationName } from '../../src/model/operations';
import { type PropertyCheck, property } from '../../src/playwright/property';
import { declaredTags } from '../../src/playwright/probes';
import { asProduct, loggedInDataIn, stockBoundsProblem, stockLabelProblem } from '../../src/checks/stock';

/** The tags of a property test: its checks' requirements, @property, and @writes where it may write. */
const propertyTags = (operation: OperationName, ...checks: Check[]): string[] =>
  declaredTags(operation, checks, ['@property']);

const every = <T>(...checks: Check[]): PropertyCheck<T>[] => checks.map((check) => ({ check }));

// Against an external target requests are paced (RSF_MAX_REQUESTS_PER_SECOND, shared by the workers), and a
// property sends up to numRuns + its examples: more than the 60 s of a single check. fast-check stops at 75% of this.
// The file runs in one worker, in order, so that its properties' inputs are sent as it starts (prefetch.ts).
test.describe.configure({ timeout: 180_000 });

const utilityRefused = [rejects('OP4-UTILITY-MAX'), documentedErrorShape('OP4-ERROR-SHAPE')];
const utilityAccepted = succeeds('OP4-UTILITY-MAX');

test.describe('§4.4 and §8 · utility of PATCH /miCuenta/misCategorias · properties', () => {
  test(
    ...property(
      'refuses every utility above 100, in the documented error shape',
      {
        tag: propertyTags('updateCategory', ...utilityRefused),
      },
      {
        operation: 'updateCategory',
        inputs: ({ bodies }) => ({ arbitrary: categoryUpdateWithUtility(bodies.categoryUpdate(), utilityAbove100()) }),
        request: (json) => ({ json }),
        checks: () => every(...utilityRefused),
      },
    ),
  );

  test(
    ...property(
      'accepts every utility in [0, 100] on the existing category',
      {
        tag: propertyTags('updateCategory', utilityAccepted),
      },
      {
        operation: 'updateCategory',
        inputs: ({ bodies }) => ({ arbitrary: validCategoryUpdate(bodies.categoryUpdate()) }),
        request: (json) => ({ json }),
        checks: () => every(utilityAccepted),
        restore: ({ bodies }) => ({ json: bodies.categoryUpdate() }), // leave the configured values behind
      },
    ),
  );
});

const addressRefusals = {
  street: rejects('OP2-REQUIRED-FIELDS'),
  placeString: rejects('OP2-PROVINCE-REQUIRES-PLACESTRING'),
  placeId: rejects('OP2-PLACEID-REQUIRED-WITHOUT-PROVINCE'),
  shape: documentedErrorShape('OP2-MISSING-DATA-PLAIN-STRING'),
  // SHOULD: its own fc.check in its own verify, so a failure is a warning; judged on rejections only.
  namesPlaceId: namesMissingField('OP2-MISSING-PLACEID-NAMED', 'placeId', namesField),
};
// As the catalogue splits them: a valid creation with placeId; the province variant is the one without it.
const addressAcceptances = {
  withPlaceId: succeeds('OP2-SUCCESS-SHAPE'),
  withProvince: succeeds('OP2-PROVINCE-VARIANT-ACCEPTED'),
};

test.describe('§4.2 · POST /miCuenta/shippingAddress · properties', () => {
  // With writes off, only bodies a conforming server must refuse are generated, and the acceptance checks are left out.
  const addressChecks = (writesEnabled: boolean): PropertyCheck<AddressCase>[] => [
    { check: addressRefusals.street, when: (c) => !c.verdict.streetComplete },
    { check: addressRefusals.placeString, when: (c) => !c.verdict.placeStringRule },
    { check: addressRefusals.placeId, when: (c) => !c.verdict.placeIdRule },
    { check: addressRefusals.shape, when: (c) => !c.verdict.accepted },
    // With a street field missing too, a server may name that one only.
    { check: addressRefusals.namesPlaceId, when: (c) => c.verdict.streetComplete && !c.verdict.placeIdRule },
    ...(writesEnabled
      ? [
          { check: addressAcceptances.withPlaceId, when: (c: AddressCase) => c.verdict.accepted && c.presence.placeId },
          {
            check: addressAcceptances.withProvince,
            when: (c: AddressCase) => c.verdict.accepted && !c.presence.placeId,
          },
        ]
      : []),
  ];
  test(
    ...property(
      'creates an address exactly when the mandatory data is present, and names placeId when it is missing',
      {
        tag: propertyTags(
          'createShippingAddress',
          ...Object.values(addressRefusals),
          ...Object.values(addressAcceptances),
        ),
      },
      {
        operation: 'createShippingAddress',
        inputs: ({ bodies, config }) => {
          const full = { ...bodies.addressWithPlaceId(), ...bodies.addressWithProvince() };
          const domain = { refusedOnly: !config.writesEnabled };
          return { arbitrary: addressCase(full, domain), examples: everyAddressCase(full, domain) };
        },
        request: (c) => ({ json: c.body }),
        checks: ({ config }) => addressChecks(config.writesEnabled),
      },
    ),
  );
});

// The operations whose bodies have several typed fields. Operation 2's rules are conditional (§4.2: the property above
// and shipping-address.spec.ts probe them), and operations 5 and 15 have few fields, each probed by an example test.
const PROPERTY_BODY_RULES = [
  BODY_RULES.updateClient,
  BODY_RULES.updateShippingAddress,
  BODY_RULES.updateCategory,
  BODY_RULES.createPaymentPreference,
];

// A dropped field and a retyped one are probed by two tests: refusing a dropped field is a MUST everywhere, and runs
// with writes off; refusing a retyped field is a SHOULD for some operations, so a conforming target may carry such a
// request out, and with writes off it is not sent (@writes). Each check judges its own bodies only.
test.describe('§4.1, §4.3, §4.4, §4.6 · required and typed fields · properties', () => {
  for (const rule of PROPERTY_BODY_RULES) {
    const { number } = OPERATIONS[rule.operation];
    const shapeOf = (errorShape?: string) => (errorShape ? [documentedErrorShape(errorShape)] : []);
    const dropped = rule.required ? [rejects(rule.required.id), ...shapeOf(rule.required.errorShape)] : [];
    const retyped = rule.types ? [rejects(rule.types.id), ...shapeOf(rule.types.errorShape)] : [];

    test(
      ...property(
        `operation ${number}: refuses every body with a required field dropped, in the documented error shape`,
        {
          tag: propertyTags(rule.operation, ...dropped),
        },
        {
          operation: rule.operation,
          inputs: (ctx) => {
            const base = rule.valid(ctx);
            // A handful of fields: each is sent, none left to chance.
            return {
              arbitrary: bodyWithFieldDropped(rule.schema, base),
              examples: everyFieldDropped(rule.schema, base),
            };
          },
          request: (m, ctx) => bodyRequest(rule, m.body, ctx),
          checks: () => every(...dropped),
        },
      ),
    );

    test(
      ...property(
        `operation ${number}: refuses every body with a field of another JSON type, in the documented error shape`,
        {
          tag: propertyTags(rule.operation, ...retyped),
        },
        {
          operation: rule.operation,
          inputs: (ctx) => ({ arbitrary: bodyWithFieldRetyped(rule.schema, rule.valid(ctx)) }),
          request: (m, ctx) => bodyRequest(rule, m.body, ctx),
          checks: () => every(...retyped),
        },
      ),
    );
  }
});

const cartRefusals = {
  unknownProduct: rejects('OP5-UNKNOWN-PRODUCT'),
  disallowedType: rejects('OP5-TYPE-NOT-ALLOWED'),
};
const messageAccepted = succeeds('OP15-SUCCESS-SHAPE');

test.describe('§4.5 and §4.15 · cart items and channel messages · properties', () => {
  // Every item of the array is bad (an unknown product or a disallowed type): a valid item beside them could be
  // carried out (§4.5 does not exclude a partial success), and with writes off nothing may be.
  test(
    ...property(
      'operation 5: refuses every cart update whose items all have an unknown product or a disallowed type',
      {
        tag: propertyTags('updateCartItems', ...Object.values(cartRefusals)),
      },
      {
        operation: 'updateCartItems',
        inputs: ({ bodies, config }) => {
          const data = { missingProductId: config.missingProductId, disallowedType: config.cartDisallowedType };
          return { arbitrary: badCartItems(bodies.cartItem(), data) };
        },
        request: (c) => ({ json: c.items }),
        checks: () => [
          { check: cartRefusals.unknownProduct, when: (c) => c.defects.includes('unknown-product') },
          { check: cartRefusals.disallowedType, when: (c) => c.defects.includes('disallowed-type') },
        ],
      },
    ),
  );

  // §8 shows no limits: an empty message or exotic characters may be refused,
  // so only ordinary, non-empty text is sent.
  test(
    ...property(
      'operation 15: accepts every non-empty message of ordinary text, accented letters and punctuation included',
      {
        tag: propertyTags('sendChannelMessage', messageAccepted),
      },
      {
        operation: 'sendChannelMessage',
        inputs: ({ bodies }) => ({ arbitrary: channelMessageBody(bodies.channelMessage()) }),
        request: (json, ctx) => ({ params: channelParams(ctx), json, credentials: 'none' }),
        checks: () => every(messageAccepted),
      },
    ),
  );
});

const productOf = (exchange: Exchange) => asProduct(jsonBody(exchange));
// Judged over every sampled answer: a failure is thrown as data, without the stack an expect() captures each time.
const stockChecks = {
  bounds: requirementCheck('OP8-STOCK-BOUNDS', (exchange) => {
    const product = productOf(exchange);
    if (typeof product.availableStock !== 'number') return notApplicable('no product carried a numeric availableStock');
    const problem = stockBoundsProblem(product);
    if (problem === undefined) return;
    throw failure(
      `Product ${String(product.id)}: stock out of bounds`,
      '0 ≤ availableStock ≤ stockDisplayLimit',
      problem,
    );
  }),
  label: requirementCheck('OP8-STOCK-LABEL', (exchange, { config }) => {
    const product = productOf(exchange);
    if (typeof product.availableStockLabel !== 'string')
      return notApplicable('no product carried an availableStockLabel');
    const problem = stockLabelProblem(product, config);
    if (problem === undefined) return;
    throw failure(`Product ${String(product.id)}: a stock label that says otherwise`, 'the label of §2.6', problem);
  }),
  anonymous: requirementCheck('OP8-ANONYMOUS-NO-LOGGED-IN-FIELDS', (exchange) => {
    const product = productOf(exchange);
    if (Object.keys(product).length === 0) return notApplicable('no anonymous answer was a product object');
    const sent = loggedInDataIn(product);
    if (sent.length === 0) return;
    throw failure(
      `Product ${String(product.id)}: logged-in fields with data, sent to an anonymous caller`,
      'none of them, or null',
      sent.join(', '),
    );
  }),
};

test.describe('§2.6 and §8 · product stock · properties', () => {
  test(
    ...property(
      'keeps availableStock within [0, stockDisplayLimit], labels it consistently, ' +
        'and shows it to logged-in callers only, for every configured product',
      {
        tag: propertyTags('getProduct', ...Object.values(stockChecks)),
      },
      {
        operation: 'getProduct',
        inputs: ({ config }) => ({
          arbitrary: stockProbe(config.stockProductIds),
          examples: everyStockProbe(config.stockProductIds),
        }),
        request: ({ productId, credentials }, { config }) => ({
          params: { product_id: productId },
          query: config.productDetailQuery,
          credentials,
        }),
        checks: () => [
          { check: stockChecks.bounds, when: (p) => p.credentials === 'valid' },
          { check: stockChecks.label, when: (p) => p.credentials === 'valid' },
          { check: stockChecks.anonymous, when: (p) => p.credentials === 'none' },
        ],
      },
    ),
  );
});
