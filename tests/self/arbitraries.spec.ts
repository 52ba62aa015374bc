// The arbitraries of tests/support/arbitraries, judged by the request schemas: every "valid" body validates and
// every "invalid" one does not, for the reason it was made invalid. Two kinds of invalidity are semantic, so
// those bodies are schema-valid on purpose: an unknown product and a disallowed item type (§4.5). utility above
// 100 is schema-level (maximum: 100). Also: the property runner's assumptions about fast-check, and the §2.7 tolerance.
import fc from 'fast-check';
import {
  JUST_ABOVE_MAX,
  addressCase,
  addressRule,
  bodyWithFieldDropped,
  bodyWithFieldRetyped,
  cartItemsWithDisallowed,
  categoryUpdateWithUtility,
  channelMessageBody,
  everyAddressCase,
  everyStockProbe,
  stockProbe,
  utilityAbove100,
  validCategoryUpdate,
} from '../support/arbitraries';
import { requirement } from '../support/catalogue';
import { expect, test } from '../support/fixtures';
import { FINAL_PRICE_TOLERANCE, finalPriceProblem } from '../support/prices';
import { fieldsOf, schemas } from '../support/schema-registry';

const RUNS = { numRuns: 300 };
const verdict = (schema: string, body: unknown) => schemas().validate(schema, body);

test.describe('category updates (§4.4, §8)', () => {
  test('every valid category update validates, with utility in [0, 100] and the configured category', async ({ bodies }) => {
    const base = bodies.categoryUpdate();
    fc.assert(fc.property(validCategoryUpdate(base), (body) => {
      expect(verdict('category-update.request', body).errors).toEqual([]);
      expect(body.utility).toBeGreaterThanOrEqual(0);
      expect(body.utility).toBeLessThanOrEqual(100);
      expect(body.categoryId).toEqual(base.categoryId);
    }), RUNS);
  });

  test('every utility above 100 is refused by the schema itself (maximum), and by nothing else', async ({ bodies }) => {
    fc.assert(fc.property(categoryUpdateWithUtility(bodies.categoryUpdate(), utilityAbove100()), (body) => {
      expect(body.utility).toBeGreaterThan(100);
      expect(Number.isFinite(body.utility as number)).toBe(true);
      expect(verdict('category-update.request', body).errors).toEqual(['/utility must be <= 100']);
    }), RUNS);
  });

  test('utilities just above 100 come up within the first ten runs', () => {
    expect(JUST_ABOVE_MAX).toBe(100 + 2 ** -46); // one ulp above 100
    for (let seed = 1; seed <= 50; seed++) {
      const first = fc.sample(utilityAbove100(), { seed, numRuns: 10 });
      expect(first.some((u) => u <= 100.01), `seed ${seed}: ${first.join(', ')}`).toBe(true);
    }
  });
});

test.describe('address creation (§4.2)', () => {
  test('a body validates exactly when the §4.2 rule accepts it, over every subset of the six fields', async ({ bodies }) => {
    const full = { ...bodies.addressWithPlaceId(), ...bodies.addressWithProvince() };
    const every = everyAddressCase(full);
    expect(new Set(every.map((c) => JSON.stringify(c.body))).size).toBe(64);
    expect(every.filter((c) => c.verdict.accepted)).toHaveLength(4);
    for (const c of every) expect(verdict('shipping-address-create.request', c.body).valid, JSON.stringify(c.presence)).toBe(c.verdict.accepted);
    fc.assert(fc.property(addressCase(full), (c) => {
      expect(verdict('shipping-address-create.request', c.body).valid).toBe(c.verdict.accepted);
      expect(Object.keys(c.body).every((k) => c.body[k] === full[k])).toBe(true); // configured values only
    }), RUNS);
  });

  test('with writes off only refused bodies are generated, and the examples are all 60 of them', async ({ bodies }) => {
    const full = { ...bodies.addressWithPlaceId(), ...bodies.addressWithProvince() };
    const refused = everyAddressCase(full, { refusedOnly: true });
    expect(refused).toHaveLength(60);
    expect(refused.every((c) => !verdict('shipping-address-create.request', c.body).valid)).toBe(true);
    fc.assert(fc.property(addressCase(full, { refusedOnly: true }), (c) => !c.verdict.accepted && !verdict('shipping-address-create.request', c.body).valid), RUNS);
  });

  test('the missing items the rule names are the ones the schema names', async ({ bodies }) => {
    for (const c of everyAddressCase({ ...bodies.addressWithPlaceId(), ...bodies.addressWithProvince() })) {
      const errors = verdict('shipping-address-create.request', c.body).errors.join('\n');
      for (const field of addressRule(c.presence).missing) expect(errors, JSON.stringify(c.presence)).toContain(`"missingProperty":"${field}"`);
    }
  });
});

const BODY_SCHEMAS = [
  { schema: 'client.request', valid: 'client' },
  { schema: 'shipping-address-update.request', valid: 'addressUpdate' },
  { schema: 'category-update.request', valid: 'categoryUpdate' },
  { schema: 'payment-preference.request', valid: 'paymentPreference' },
] as const;

test.describe('a required field dropped or retyped (operations 1, 3, 4, 6)', () => {
  for (const { schema, valid } of BODY_SCHEMAS) {
    test(`${schema}: the base validates, and every dropped or retyped field is refused for that field`, async ({ bodies }) => {
      const base = bodies[valid]();
      expect(verdict(schema, base).errors).toEqual([]);
      fc.assert(fc.property(bodyWithFieldDropped(schema, base), ({ field, body }) => {
        expect(field in body).toBe(false);
        expect(verdict(schema, body).errors).toContain(`(root) must have required property '${field}' {"missingProperty":"${field}"}`);
      }), RUNS);
      const typed = new Map(fieldsOf(schema).filter((f) => f.type).map((f) => [f.name, f.type]));
      fc.assert(fc.property(bodyWithFieldRetyped(schema, base), ({ field, body }) => {
        expect(typed.has(field), `${field} has one declared type`).toBe(true);
        expect(verdict(schema, body).errors).toContain(`/${field} must be ${typed.get(field)}`);
      }), RUNS);
    });
  }

  test('fields whose type the spec leaves open are never retyped (categoryId, placeId of operation 3)', async ({ bodies }) => {
    const fields = (schema: string, base: Record<string, unknown>) => new Set(fc.sample(bodyWithFieldRetyped(schema, base), { seed: 7, numRuns: 500 }).map((m) => m.field));
    expect(fields('category-update.request', bodies.categoryUpdate()).has('categoryId')).toBe(false);
    expect(fields('shipping-address-update.request', bodies.addressUpdate()).has('placeId')).toBe(false);
  });
});

test.describe('cart items (§4.5) and channel messages (§4.15)', () => {
  test('a cart array with an unknown product or a disallowed type is schema-valid: its invalidity is semantic', async ({ bodies, config }) => {
    const item = bodies.cartItem();
    const data = { missingProductId: config.missingProductId, disallowedType: config.cartDisallowedType };
    fc.assert(fc.property(cartItemsWithDisallowed(item, data), ({ items, badIndex, defects }) => {
      expect(verdict('cart-items.request', items).errors).toEqual([]);
      const bad = items[badIndex] ?? {};
      expect(bad.productId === data.missingProductId).toBe(defects.includes('unknown-product'));
      expect(bad.type === data.disallowedType).toBe(defects.includes('disallowed-type'));
      expect(items.filter((_, i) => i !== badIndex)).toEqual(items.filter((_, i) => i !== badIndex).map(() => item));
    }), RUNS);
  });

  test('cart arrays shrink to the bad item alone (built with map, so fast-check can shrink them)', async ({ bodies, config }) => {
    const arb = cartItemsWithDisallowed(bodies.cartItem(), { missingProductId: config.missingProductId, disallowedType: config.cartDisallowedType });
    const details = fc.check(fc.property(arb, (c) => c.items.length < 4), { seed: 3 });
    expect(details.failed).toBe(true);
    expect(details.counterexample?.[0].items).toHaveLength(4);
    const any = fc.check(fc.property(arb, (c) => c.items.length === 0), { seed: 3 }); // fails for every array
    expect(any.counterexample?.[0].items).toHaveLength(1);
  });

  test('every channel message validates: the empty string and non-ASCII text included, all strings', async ({ bodies }) => {
    fc.assert(fc.property(channelMessageBody(bodies.channelMessage()), (body) => verdict('message-channel-send.request', body).valid), RUNS);
    const messages = fc.sample(channelMessageBody(bodies.channelMessage()), { seed: 11, numRuns: 300 }).map((b) => String(b.message));
    expect(messages).toContain('');
    expect(messages.some((m) => /[^\x00-\x7f]/.test(m))).toBe(true);
  });
});

test.describe('the property runner relies on fast-check drawing the same values', () => {
  test('fc.sample with a seed yields the values fc.check runs first, for every arbitrary of the properties', async ({ bodies, config }) => {
    const full = { ...bodies.addressWithPlaceId(), ...bodies.addressWithProvince() };
    const arbitraries: Record<string, fc.Arbitrary<unknown>> = {
      utilityAbove100: categoryUpdateWithUtility(bodies.categoryUpdate(), utilityAbove100()),
      validCategoryUpdate: validCategoryUpdate(bodies.categoryUpdate()),
      addressCase: addressCase(full),
      addressCaseRefused: addressCase(full, { refusedOnly: true }),
      fieldBroken: bodyWithFieldRetyped('client.request', bodies.client()),
      cart: cartItemsWithDisallowed(bodies.cartItem(), { missingProductId: config.missingProductId, disallowedType: config.cartDisallowedType }),
      channel: channelMessageBody(bodies.channelMessage()),
      stock: stockProbe(config.stockProductIds),
    };
    const examples = everyStockProbe(['a', 'b']);
    for (const [name, arbitrary] of Object.entries(arbitraries)) {
      for (const seed of [1, -42, 2_000_000_000]) {
        const seen: unknown[] = [];
        await fc.check(fc.asyncProperty(arbitrary, async (v) => { seen.push(v); }), { seed, numRuns: 50 + examples.length, examples: examples.map((e): [unknown] => [e]) });
        expect(JSON.stringify(seen), `${name}, seed ${seed}`).toBe(JSON.stringify([...examples, ...fc.sample(arbitrary, { seed, numRuns: 50 })]));
      }
    }
  });
});

test.describe('§2.7 finalPrice tolerance', () => {
  test('the catalogue states the tolerance the code applies', () => {
    const { absolute, relative } = FINAL_PRICE_TOLERANCE;
    expect(requirement('OP9-FINAL-PRICE').text).toContain(`within ${absolute} + ${relative * 100}% of finalPrice`);
  });

  test('prices within the tolerance pass, and prices outside it are named', () => {
    expect(finalPriceProblem({ value: 100, iva: 21, finalPrice: 121 })).toBeUndefined();
    expect(finalPriceProblem({ value: 89.9, iva: 10.5, finalPrice: 99.34 })).toBeUndefined(); // rounded to cents
    expect(finalPriceProblem({ value: 100, iva: 21, finalPrice: 121.6 })).toBeUndefined(); // 0.6 ≤ 0.01 + 0.605
    expect(finalPriceProblem({ value: 100, iva: 21, finalPrice: 121.7 })).toMatch(/finalPrice 121.7/);
    expect(finalPriceProblem({ value: 100, iva: 21, finalPrice: 100 })).toMatch(/tolerance/);
    expect(finalPriceProblem({ value: '100', iva: 21, finalPrice: 100 })).toBeUndefined(); // a type error is OP9-SUCCESS-SHAPE's
  });
});
