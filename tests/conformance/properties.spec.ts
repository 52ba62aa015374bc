// Property probes (issue 5): rules that hold for every input of a kind, checked over generated inputs. They run the
// same checks as the example tests (checks.ts), each requirement as one fc.check inside one conformance.verify
// (property.ts), so a SHOULD property warns and a MUST property fails. '@property' is a label tag.
import { isDeepStrictEqual } from 'node:util';
import {
  type AddressCase,
  addressCase,
  badCartItems,
  badCartItemsOfAmountZero,
  bodyWithFieldDropped,
  bodyWithFieldRetyped,
  categoryUpdateWithUtility,
  everyAddressCase,
  everyFieldDropped,
  everyRequiredFieldDropped,
  everyStockProbe,
  namesField,
  type BodyOperation,
  type PathValue,
  stockProbe,
  utilityAbove100,
  validBodyInputs,
  cutToConfiguredLengths,
  configuredBodyOf,
  validCartInputs,
  validCategoryUpdate,
  validPathExamples,
  validPathParams,
} from '../../src/arbitraries';
import { BODY_RULES, WRONG_CHANNEL_SETTINGS, bodyRequest } from '../../src/model/body-rules';
import {
  type AllowedRefusal,
  type Check,
  type CheckContext,
  acceptsValidInput,
  documentedErrorShape,
  jsonUtf8,
  matchesSchema,
  namesMissingField,
  notApplicable,
  notRejected,
  rejects,
  requirementCheck,
  succeeds,
} from '../../src/checks/checks';
import { failure } from '../../src/checks/failure';
import { isObject, sentJson } from '../../src/checks/outcome';
import { shareOutTestByTest, test } from '../../src/playwright/fixtures';
import { type Exchange, type SendOptions, jsonBody } from '../../src/http/exchange';
import { OPERATIONS, type OperationName } from '../../src/model/operations';
import { type PropertyCheck, type PropertySpec, property } from '../../src/playwright/property';
import type { RequestContext } from '../../src/playwright/declarations';
import { declaredTags } from '../../src/playwright/probes';
import {
  LOGGED_IN_FIELDS,
  asProduct,
  atDisplayLimit,
  exactLabelAtLimitProblem,
  anonymousCartProblem,
  descriptionTypeProblem,
  loggedInDataIn,
  stockBoundsProblem,
  stockLabelProblem,
} from '../../src/checks/stock';
import type fc from 'fast-check';

type Params = Record<string, string | number>;

/** The tags of a property test: its checks' requirements, @property, and @writes where it may write. */
const propertyTags = (operation: OperationName, ...checks: Check[]): string[] =>
  declaredTags(operation, checks, ['@property']);

const every = <T>(...checks: Check[]): PropertyCheck<T>[] => checks.map((check) => ({ check }));

// Against an external target requests are paced (RSF_MAX_REQUESTS_PER_SECOND, shared by the workers), and a
// property sends up to numRuns + its examples: more than the 60 s of a single check. fast-check stops at 75% of this.
test.describe.configure({ timeout: 180_000 });
// The properties are the suite's longest tests: shared out among the workers, they keep them all busy.
shareOutTestByTest(__filename);

const utilityRefused = [rejects('OP4-UTILITY-MAX'), documentedErrorShape('OP4-ERROR-SHAPE')];
const utilityAccepted = notRejected('OP4-UTILITY-MAX', 'OP4-ERROR-SHAPE');

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
        `operation ${number}: refuses every body with a required field dropped, or all dropped, ` +
          'in the documented error shape',
        {
          tag: propertyTags(rule.operation, ...dropped),
        },
        {
          operation: rule.operation,
          inputs: (ctx) => {
            const base = rule.valid(ctx);
            const withOptional = rule.withOptionalFields ? [rule.withOptionalFields(ctx)] : [];
            // A handful of fields: each is sent, none left to chance, beside the optional fields too; and all at once,
            // a body wrong in several fields, whose error is still of the documented shape (null: probes.ts).
            return {
              arbitrary: bodyWithFieldDropped(rule.schema, base, ...withOptional),
              examples: [
                ...everyFieldDropped(rule.schema, base, ...withOptional),
                everyRequiredFieldDropped(rule.schema, base),
              ],
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

test.describe('§4.5 · cart items · properties', () => {
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
          return {
            arbitrary: badCartItems(bodies.cartItem(), data),
            examples: badCartItemsOfAmountZero(bodies.cartItem(), data),
          };
        },
        request: (c) => ({ json: c.items }),
        checks: () => [
          { check: cartRefusals.unknownProduct, when: (c) => c.defects.includes('unknown-product') },
          { check: cartRefusals.disallowedType, when: (c) => c.defects.includes('disallowed-type') },
        ],
      },
    ),
  );
});

const productOf = (exchange: Exchange) => asProduct(jsonBody(exchange));
type Product = ReturnType<typeof productOf>;

/**
 * A check of each sampled product answer: not applicable where `applies` holds for none (`none` says why), failed
 * with `Product <id>: <title>` where `problem` names one. Judged over every sampled answer: a failure is thrown as
 * data, without the stack an expect() captures each time.
 */
function productCheck(
  id: string,
  spec: {
    applies: (product: Product) => boolean;
    none: string;
    title: string;
    expected: string;
    problem: (product: Product, config: CheckContext['config']) => string | undefined;
  },
): Check {
  return requirementCheck(id, (exchange, { config }) => {
    const product = productOf(exchange);
    if (!spec.applies(product)) return notApplicable(spec.none);
    const problem = spec.problem(product, config);
    if (problem === undefined) return;
    throw failure(`Product ${String(product.id)}: ${spec.title}`, spec.expected, problem);
  });
}

const isProductObject = (product: Product): boolean => Object.keys(product).length > 0;
/** `fields` listed after `prefix`, or undefined when there are none (no problem). */
const listed = (fields: readonly string[], prefix = ''): string | undefined =>
  fields.length === 0 ? undefined : `${prefix}${fields.join(', ')}`;

const stockChecks = {
  // Every configured product in the shape of §2.6, not RSF_PRODUCT_ID alone: a field may turn null for one with no
  // stock, or with no attributes.
  shape: matchesSchema('OP8-SUCCESS-SHAPE', 'product.response'),
  // A product's own text (an accented name, say) is where a legacy encoding shows.
  utf8: jsonUtf8(),
  bounds: productCheck('OP8-STOCK-BOUNDS', {
    applies: (product) => typeof product.availableStock === 'number',
    none: 'no product carried a numeric availableStock',
    title: 'stock out of bounds',
    expected: '0 ≤ availableStock ≤ stockDisplayLimit',
    problem: stockBoundsProblem,
  }),
  label: productCheck('OP8-STOCK-LABEL', {
    applies: (product) => typeof product.availableStockLabel === 'string',
    none: 'no product carried an availableStockLabel',
    title: 'a stock label that says otherwise',
    expected: 'the label of §2.6',
    problem: stockLabelProblem,
  }),
  atLimit: productCheck('OP8-STOCK-LABEL-AT-LIMIT', {
    applies: atDisplayLimit,
    none: 'no product was at its display limit (availableStock = stockDisplayLimit, above 0)',
    title: 'an exact stock label at the limit',
    expected: '"X units or more"',
    problem: exactLabelAtLimitProblem,
  }),
  present: productCheck('OP8-LOGGED-IN-FIELDS', {
    applies: isProductObject,
    none: 'no answer to a logged-in caller was a product object',
    title: 'logged-in fields missing for a logged-in caller',
    expected: LOGGED_IN_FIELDS.join(', '),
    problem: (product) =>
      listed(
        LOGGED_IN_FIELDS.filter((field) => !(field in product)),
        'no ',
      ),
  }),
  anonymous: productCheck('OP8-ANONYMOUS-NO-LOGGED-IN-FIELDS', {
    applies: isProductObject,
    none: 'no anonymous answer was a product object',
    title: 'logged-in fields with data, sent to an anonymous caller',
    expected: 'none of them, or null',
    problem: (product) => listed(loggedInDataIn(product)),
  }),
  descriptionType: productCheck('OP8-DESCRIPTION-MEDIA-TYPE', {
    applies: isProductObject,
    none: 'no answer was a product object',
    title: 'a description type that is no media type',
    expected: 'text/plain',
    problem: descriptionTypeProblem,
  }),
  anonymousCart: productCheck('OP8-ANONYMOUS-NO-CART', {
    applies: isProductObject,
    none: 'no anonymous answer was a product object',
    title: 'a cart shown to an anonymous caller',
    expected: 'amountInCart 0',
    problem: anonymousCartProblem,
  }),
};

test.describe('§2.6 and §8 · product stock · properties', () => {
  test(
    ...property(
      'answers every configured product in the shape of §2.6, keeps availableStock within [0, stockDisplayLimit], ' +
        'labels it consistently, and shows it to every logged-in caller and to no other',
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
          { check: stockChecks.shape },
          { check: stockChecks.descriptionType },
          { check: stockChecks.utf8 },
          { check: stockChecks.bounds, when: (p) => p.credentials === 'valid' },
          { check: stockChecks.label, when: (p) => p.credentials === 'valid' },
          { check: stockChecks.atLimit, when: (p) => p.credentials === 'valid' },
          { check: stockChecks.present, when: (p) => p.credentials === 'valid' },
          { check: stockChecks.anonymous, when: (p) => p.credentials === 'none' },
          { check: stockChecks.anonymousCart, when: (p) => p.credentials === 'none' },
        ],
      },
    ),
  );
});

// Issue 23, item 7: valid input that real customers type. The spec sets no maximum length and no character set for
// strings (§8: limits not shown), so a 5xx or an undocumented shape for a valid request breaks the operation's success
// requirement. A refusal in the documented error shape stays allowed where the spec lists a reason that may apply (a
// generated id may name nothing). Fourteen properties: each checks a tenth of RSF_FC_NUM_RUNS, after its examples.
const validInputRuns = (configured: number): number => Math.ceil(configured / 10);

interface ValidInputSpec<T> {
  operation: OperationName;
  what: string;
  check: Check;
  /** `check` as the run's data makes it, where it needs them: the same requirements (the test's tags are check's). */
  checkWith?: (ctx: RequestContext) => Check;
  inputs: (ctx: RequestContext) => { arbitrary: fc.Arbitrary<T>; examples: readonly T[] };
  request: (value: T, ctx: RequestContext) => SendOptions;
  restore?: (ctx: RequestContext) => SendOptions;
  wrongSettings?: PropertySpec<T>['wrongSettings'];
  sizeControl?: PropertySpec<T>['sizeControl'];
}

function validInput<T>(spec: ValidInputSpec<T>): Parameters<typeof test> {
  const { operation, check, checkWith, inputs, request, restore, wrongSettings, sizeControl } = spec;
  const title = `operation ${OPERATIONS[operation].number}: ${spec.what}`;
  const checks = (ctx: RequestContext) => every<T>(checkWith?.(ctx) ?? check);
  const body = { operation, inputs, request, checks, numRuns: validInputRuns };
  const extra = {
    ...(restore && { restore }),
    ...(wrongSettings && { wrongSettings }),
    ...(sizeControl && { sizeControl }),
  };
  return property(title, { tag: propertyTags(operation, check) }, { ...body, ...extra });
}

/** Bodies: the configured one, each field kept or given text, a number or a boolean (validBody). */
const bodyInputs =
  (operation: BodyOperation) =>
  ({ bodies }: RequestContext) =>
    validBodyInputs(operation, bodies);

/**
 * Where the spec lists no refusal of a valid body, one refused is sent again with its long texts cut to the
 * configured values' size: carried out, it was refused for its size, a limit §8 leaves open (indep102: 250 characters,
 * answered 400).
 */
const sizeControlOf =
  (operation: BodyOperation) =>
  (body: Record<string, unknown>, { bodies }: RequestContext): Record<string, unknown> | undefined =>
    cutToConfiguredLengths(body, configuredBodyOf(operation, bodies));

/** Path parameters: the configured ones (which name the target's data), each kept or generated. */
const pathInputs =
  (configured: (ctx: RequestContext) => Params, kinds: Record<string, PathValue>) => (ctx: RequestContext) => ({
    arbitrary: validPathParams(configured(ctx), kinds),
    examples: validPathExamples(configured(ctx), kinds),
  });

const CART_REFUSAL: AllowedRefusal = {
  reason: '§4.5: the product does not exist or could not be updated, or the item type is not allowed',
};

/** Whether the cart update `x` sent holds items, each of which `matches`. */
function everyItemSent(x: Exchange, matches: (item: unknown) => boolean): boolean {
  const items = sentJson(x);
  return Array.isArray(items) && items.length > 0 && items.every(matches);
}

/** Whether every item of the cart update `x` sent is of the product and type of `configured`, at any amount. */
const onlyProduct = (configured: Record<string, unknown>, x: Exchange): boolean =>
  everyItemSent(
    x,
    (item) => isObject(item) && item.productId === configured.productId && item.type === configured.type,
  );

/** Whether every item of the cart update `x` sent is `configured`, as the settings name it. */
const onlyItem = (configured: object, x: Exchange): boolean =>
  everyItemSent(x, (item) => isDeepStrictEqual(item, configured));

/**
 * Where the spec shows no error body (§7.1 lists none, §7.4), any refusal that is not a 5xx: of a generated id that
 * names nothing, which the reports need not list.
 */
const unknownResource = (what: string): AllowedRefusal => ({
  reason: `${what} may name nothing on the target`,
  expected: () => true,
});

test.describe('§8 · valid input of any length and characters · properties', () => {
  test(
    ...validInput({
      operation: 'updateClient',
      what: 'updates the client with text of any length and script, and integers at their edges',
      check: acceptsValidInput('OP1-SUCCESS-SHAPE', {
        reason: '§4.1: data not in the required format or not possible to update',
        errorShape: 'OP1-ERROR-SHAPE',
      }),
      inputs: bodyInputs('updateClient'),
      request: (json) => ({ json }),
      restore: ({ bodies }) => ({ json: bodies.client() }),
    }),
  );
  test(
    ...validInput({
      operation: 'createShippingAddress',
      what: 'creates an address whose street, phone and postal code are text of any length and script',
      // §4.2 lists no refusal of complete data.
      check: acceptsValidInput('OP2-SUCCESS-SHAPE'),
      inputs: bodyInputs('createShippingAddress'),
      sizeControl: sizeControlOf('createShippingAddress'),
      request: (json) => ({ json }),
    }),
  );
  test(
    ...validInput({
      operation: 'updateShippingAddress',
      what: 'updates the address with street, phone and postal code of any length and script',
      check: acceptsValidInput('OP3-SUCCESS-SHAPE'),
      inputs: bodyInputs('updateShippingAddress'),
      sizeControl: sizeControlOf('updateShippingAddress'),
      request: (json) => ({ json }),
      restore: ({ bodies }) => ({ json: bodies.addressUpdate() }),
    }),
  );
  test(
    ...validInput({
      operation: 'updateCategory',
      what: 'updates the category with a description of any length and script, and utility in [0, 100]',
      check: acceptsValidInput('OP4-SUCCESS-SHAPE', {
        reason: '§4.4: the category could not be updated',
        errorShape: 'OP4-ERROR-SHAPE',
      }),
      inputs: bodyInputs('updateCategory'),
      request: (json) => ({ json }),
      restore: ({ bodies }) => ({ json: bodies.categoryUpdate() }),
    }),
  );
  test(
    ...validInput({
      operation: 'updateCartItems',
      what: 'takes cart items whose integers range to their edges',
      check: acceptsValidInput('OP5-SUCCESS-SHAPE', CART_REFUSAL),
      // §7 shows no error body for operation 5: an item other than the configured one (a product at the integer
      // edges names none) may be refused in any JSON shape. Only an answer to the configured item, alone or twice,
      // that is a JSON object and no recognised refusal, is a success off its shape (indep101: `{"fault": …}` with
      // HTTP 200 to product 2^53 − 1 failed OP5-SUCCESS-SHAPE).
      checkWith: ({ bodies }) =>
        acceptsValidInput('OP5-SUCCESS-SHAPE', {
          ...CART_REFUSAL,
          refusedInAnyShape: (x) => !onlyItem(bodies.cartItem(), x),
          // Shown: a refusal of the configured product and type, at an amount of 2^32, say (indep106: a 32-bit
          // column); one of other products, which may not exist, is expected.
          expected: (x) => !onlyProduct(bodies.cartItem(), x),
        }),
      inputs: ({ bodies }) => validCartInputs(bodies),
      request: (json) => ({ json }),
      restore: ({ bodies }) => ({ json: [bodies.cartItem()] }),
    }),
  );
  test(
    ...validInput({
      operation: 'createPaymentPreference',
      what: 'creates a payment preference whose title, price and ids range widely',
      check: acceptsValidInput('OP6-SUCCESS-SHAPE', {
        reason: '§4.6: the payment preference could not be created',
        errorShape: 'OP6-ERROR-SHAPE',
      }),
      inputs: bodyInputs('createPaymentPreference'),
      request: (json) => ({ json }),
    }),
  );
  test(
    ...validInput({
      operation: 'createPostSale',
      what: 'creates a post-sale request whose values range widely',
      check: acceptsValidInput('OP13-SUCCESS-SHAPE', {
        reason: '§4.13 does not show the fields of a post-sale request: generated values may not be what it needs',
      }),
      inputs: bodyInputs('createPostSale'),
      request: (json) => ({ json }),
    }),
  );
  test(
    ...validInput({
      operation: 'sendChannelMessage',
      what: 'sends a message of any length and script',
      // §4.15 lists no refusal of a message, and shows no limit on it.
      check: acceptsValidInput('OP15-SUCCESS-SHAPE'),
      inputs: bodyInputs('sendChannelMessage'),
      sizeControl: sizeControlOf('sendChannelMessage'),
      request: (json, ctx) => bodyRequest(BODY_RULES.sendChannelMessage, json, ctx),
      // Every message goes to the configured channel: refused as a wrong token is, the settings are suspect.
      wrongSettings: WRONG_CHANNEL_SETTINGS,
    }),
  );
  test(
    ...validInput({
      operation: 'quoteShipping',
      what: 'quotes, or refuses as §4.7 allows, a postal code and full address of any length and script',
      check: acceptsValidInput('OP7-SUCCESS-SHAPE', {
        reason: '§4.7: the shipping cannot be calculated (an address format that is not valid)',
        errorShape: 'OP7-ERROR-SHAPE',
        expected: () => true, // a generated address is seldom one a shipping rate is known for
      }),
      inputs: pathInputs(
        ({ config }) => ({
          codigoPostalFavorito: config.shippingPostalCode,
          direccionCompleta: config.shippingAddressValid,
        }),
        { codigoPostalFavorito: 'text', direccionCompleta: 'text' },
      ),
      request: (params) => ({ params }),
    }),
  );
  test(
    ...validInput({
      operation: 'getProduct',
      what: 'answers a product_id of any length and script with a product or the documented plain string',
      check: acceptsValidInput('OP8-SUCCESS-SHAPE', {
        reason: '§4.8: the product could not be obtained',
        errorShape: 'OP8-ERROR-SHAPE',
        serverError: true, // §4.8's sample failure is an internal server error message
        expected: () => true, // a generated product_id names no product
      }),
      inputs: pathInputs(({ config }) => ({ product_id: config.productId }), { product_id: 'text' }),
      request: (params, { config }) => ({ params, query: config.productDetailQuery, credentials: 'valid' }),
    }),
  );
  test(
    ...validInput({
      operation: 'getPaymentVoucher',
      what: 'answers a branch and order of any length and script without a server error',
      check: acceptsValidInput('OP10-SUCCESS-SHAPE', unknownResource('a generated branch and order')),
      inputs: pathInputs(({ config }) => ({ branch: config.voucherBranch, order: config.voucherOrder }), {
        branch: 'text',
        order: 'text',
      }),
      request: (params) => ({ params }),
    }),
  );
  test(
    ...validInput({
      operation: 'getOrder',
      what: 'answers a branch and albNumber of any length and script without a server error',
      check: acceptsValidInput('OP11-SUCCESS-SHAPE', unknownResource('a generated branch and albNumber')),
      inputs: pathInputs(({ config }) => ({ branch: config.orderBranch, albNumber: config.orderAlbNumber }), {
        branch: 'text',
        albNumber: 'text',
      }),
      request: (params) => ({ params }),
    }),
  );
  test(
    ...validInput({
      operation: 'deleteProduct',
      what: 'answers the deletion of an id of any length and script without a server error',
      // Never an id an account may have (a character outside ASCII in each): this DELETE must not delete anything.
      check: acceptsValidInput('OP12-DELETE-SUCCEEDS', unknownResource('a generated id')),
      inputs: pathInputs(() => ({}), { id: 'non-ascii-text' }),
      request: (params) => ({ params }),
    }),
  );
  test(
    ...validInput({
      operation: 'getMessageChannel',
      what: 'answers a postsaleInboundId at the edges of the integers without a server error',
      check: acceptsValidInput('OP14-SUCCESS-SHAPE', unknownResource('a generated postsaleInboundId')),
      inputs: pathInputs(({ config }) => ({ postsaleInboundId: config.postSaleId }), { postsaleInboundId: 'integer' }),
      request: (params) => ({ params }),
    }),
  );
});
