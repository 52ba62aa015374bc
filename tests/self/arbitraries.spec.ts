import assert from 'node:assert/strict';
// The arbitraries of src/arbitraries, judged by the request schemas: every "valid" body validates and
// every "invalid" one does not, for the reason it was made invalid. Two kinds of invalidity are semantic, so
// those bodies are schema-valid on purpose: an unknown product and a disallowed item type (§4.5). utility above
// 100 is schema-level (maximum: 100). Wrong-type values are of another JSON type and not coercible to the right one.
// The valid input of every operation (any length, any script, numbers at their edges) validates, and ranges as wide
// as it says. Also: the property runner's assumptions about fast-check, and the §2.7 tolerance.
import fc from 'fast-check';
import {
  JUST_ABOVE_MAX,
  addressCase,
  addressRule,
  badCartItems,
  bodyWithFieldDropped,
  bodyWithFieldRetyped,
  categoryUpdateWithUtility,
  everyAddressCase,
  everyFieldDropped,
  everyRequiredFieldNull,
  everyStockProbe,
  stockProbe,
  utilityAbove100,
  validCategoryUpdate,
  valueNotOfType,
  type BodyOperation,
  type ValidBodyOptions,
  MAX_TEXT_LENGTH,
  PATH_TEXT_EXAMPLE,
  TEXT_EXAMPLES,
  VALID_BODY_INPUTS,
  customerText,
  integerAtEdges,
  numberAtEdges,
  validBodyInputs,
  cutToConfiguredLengths as configuredLengths,
  validCartInputs,
  validPathExamples,
  validPathParams,
} from '../../src/arbitraries';
import { OPERATIONS } from '../../src/model/operations';
import { requirement } from '../../src/model/catalogue';
import { expect, test } from '../../src/playwright/fixtures';
import { coercibleValueProbes } from '../../src/playwright/probes';
import { DECLARED_ANNOTATION, declarationOf } from '../../src/playwright/declarations';
import { BODY_RULES } from '../../src/model/body-rules';
import { validBodies } from '../../src/model/bodies';
import { loadConfig } from '../../src/config/config';
import { FINAL_PRICE_TOLERANCE, finalPriceProblem } from '../../src/checks/prices';
import { fieldsOf, schemas } from '../../src/model/schema-registry';
import { SCALAR_TYPES, listOf, typedFields, without, wrongTypeValue } from '../../src/model/bodies';

const RUNS = { numRuns: 300 };
// Inside a property, run hundreds of times, checks use node:assert: Playwright's expect() captures a source-mapped
// stack on every call, which made these tests a hundred times slower. fast-check reports the counterexample.
const verdict = (schema: string, body: unknown) => schemas().validate(schema, body);

test.describe('category updates (§4.4, §8)', () => {
  test('every valid category update validates, with utility in [0, 100] and the other fields as configured', async ({
    bodies,
  }) => {
    const base = bodies.categoryUpdate();
    fc.assert(
      fc.property(validCategoryUpdate(base), (body) => {
        assert.deepEqual(verdict('category-update.request', body).errors, []);
        assert.ok((body.utility as number) >= 0 && (body.utility as number) <= 100, `utility ${body.utility}`);
        assert.deepEqual({ ...body, utility: base.utility }, base, 'every field but utility as configured');
      }),
      RUNS,
    );
  });

  test('every utility above 100 is refused by the schema itself (maximum), and by nothing else', async ({ bodies }) => {
    fc.assert(
      fc.property(categoryUpdateWithUtility(bodies.categoryUpdate(), utilityAbove100()), (body) => {
        assert.ok((body.utility as number) > 100 && Number.isFinite(body.utility), `utility ${body.utility}`);
        assert.deepEqual(verdict('category-update.request', body).errors, ['/utility must be <= 100']);
      }),
      RUNS,
    );
  });

  test('utilities just above 100 come up within the first ten runs', () => {
    expect(JUST_ABOVE_MAX).toBe(100 + 2 ** -46); // one ulp above 100
    for (let seed = 1; seed <= 50; seed++) {
      const first = fc.sample(utilityAbove100(), { seed, numRuns: 10 });
      expect(
        first.some((u) => u <= 100.01),
        `seed ${seed}: ${first.join(', ')}`,
      ).toBe(true);
    }
  });
});

test.describe('address creation (§4.2)', () => {
  test('a body validates exactly when the §4.2 rule accepts it, over every subset of the six fields', async ({
    bodies,
  }) => {
    const full = { ...bodies.addressWithPlaceId(), ...bodies.addressWithProvince() };
    const every = everyAddressCase(full);
    expect(new Set(every.map((c) => JSON.stringify(c.body))).size).toBe(64);
    expect(every.filter((c) => c.verdict.accepted)).toHaveLength(4);
    for (const c of every)
      expect(verdict('shipping-address-create.request', c.body).valid, JSON.stringify(c.presence)).toBe(
        c.verdict.accepted,
      );
    fc.assert(
      fc.property(addressCase(full), (c) => {
        assert.equal(verdict('shipping-address-create.request', c.body).valid, c.verdict.accepted);
        assert.ok(
          Object.keys(c.body).every((k) => c.body[k] === full[k]),
          'configured values only',
        );
      }),
      RUNS,
    );
  });

  test('with writes off only refused bodies are generated, and the examples are all 60 of them', async ({ bodies }) => {
    const full = { ...bodies.addressWithPlaceId(), ...bodies.addressWithProvince() };
    const refused = everyAddressCase(full, { refusedOnly: true });
    expect(refused).toHaveLength(60);
    expect(refused.every((c) => !verdict('shipping-address-create.request', c.body).valid)).toBe(true);
    fc.assert(
      fc.property(
        addressCase(full, { refusedOnly: true }),
        (c) => !c.verdict.accepted && !verdict('shipping-address-create.request', c.body).valid,
      ),
      RUNS,
    );
  });

  test('the missing items the rule names are the ones the schema names', async ({ bodies }) => {
    for (const c of everyAddressCase({ ...bodies.addressWithPlaceId(), ...bodies.addressWithProvince() })) {
      const errors = verdict('shipping-address-create.request', c.body).errors.join('\n');
      for (const field of addressRule(c.presence).missing)
        expect(errors, JSON.stringify(c.presence)).toContain(`"missingProperty":"${field}"`);
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
    test(`${schema}: the base validates, and every dropped or retyped field is refused for that field`, async ({
      bodies,
    }) => {
      const base = bodies[valid]();
      expect(verdict(schema, base).errors).toEqual([]);
      fc.assert(
        fc.property(bodyWithFieldDropped(schema, base), ({ field, body }) => {
          assert.ok(!(field in body), `${field} dropped`);
          const missing = `(root) must have required property '${field}' {"missingProperty":"${field}"}`;
          assert.ok(verdict(schema, body).errors.includes(missing), missing);
        }),
        RUNS,
      );
      const every = everyFieldDropped(schema, base);
      expect(every.map((m) => m.field)).toEqual(
        fieldsOf(schema)
          .filter((f) => f.required)
          .map((f) => f.name),
      );
      expect(every.every((m) => m.mutation === 'dropped' && !(m.field in m.body))).toBe(true);
      const typed = new Map(
        fieldsOf(schema)
          .filter((f) => f.type)
          .map((f) => [f.name, f.type]),
      );
      fc.assert(
        fc.property(bodyWithFieldRetyped(schema, base), ({ field, body }) => {
          assert.ok(typed.has(field), `${field} has one declared type`);
          const wrongType = `/${field} must be ${typed.get(field)}`;
          assert.ok(verdict(schema, body).errors.includes(wrongType), wrongType);
        }),
        RUNS,
      );
    });
  }

  test('a required field is sent as null only where its schema takes no null: refused, read either way', async ({
    bodies,
  }) => {
    for (const { schema, valid } of BODY_SCHEMAS) {
      const nulls = everyRequiredFieldNull(schema, bodies[valid]());
      expect(nulls.length, schema).toBeGreaterThan(0);
      for (const { field, body } of nulls) {
        expect(body[field], `${schema}: ${field}`).toBeNull();
        expect(verdict(schema, body).errors.length, `${schema}: ${field} null is invalid`).toBeGreaterThan(0);
        expect(verdict(schema, without(body, field)).errors.length, `${schema}: and so is ${field} absent`).toBe(1);
      }
    }
    // placeId of operation 3, whose declared type is not shown, is a string or a number: null is still no value.
    const update = everyRequiredFieldNull('shipping-address-update.request', bodies.addressUpdate());
    expect(update.map((m) => m.field)).toContain('placeId');
  });

  test('each scalar field is also sent as a list of its valid value, which its schema refuses', async ({ bodies }) => {
    for (const { schema, valid } of BODY_SCHEMAS) {
      const base = bodies[valid]();
      const scalars = typedFields(schema).filter((f) => SCALAR_TYPES.has(f.type ?? ''));
      expect(scalars.length, schema).toBeGreaterThan(0);
      for (const { name } of scalars) {
        const body = { ...base, [name]: listOf(base[name]) };
        expect(verdict(schema, body).errors.length, `${schema}: ${name} as a list is invalid`).toBe(1);
      }
    }
    expect(listOf('+54 341 555 0101')).toEqual(['+54 341 555 0101', '+54 341 555 0101']);
    expect(listOf(undefined)).toEqual([1, 2]);
  });

  test(
    'fields whose type the spec leaves open are never retyped ' +
      '(categoryId, placeId of operation 3, quantity of operation 6)',
    async ({ bodies }) => {
      const fields = (schema: string, base: Record<string, unknown>) =>
        new Set(fc.sample(bodyWithFieldRetyped(schema, base), { seed: 7, numRuns: 500 }).map((m) => m.field));
      expect(fields('category-update.request', bodies.categoryUpdate()).has('categoryId')).toBe(false);
      expect(fields('shipping-address-update.request', bodies.addressUpdate()).has('placeId')).toBe(false);
      // quantity is a number or a numeric string (anyOf): no one declared type, so it is neither typed nor retyped.
      expect(fieldsOf('payment-preference.request').find((f) => f.name === 'quantity')).toEqual({
        name: 'quantity',
        required: true,
      });
      const preference = fields('payment-preference.request', bodies.paymentPreference());
      expect(preference.has('quantity')).toBe(false);
      expect([...preference].sort()).toEqual(['branch', 'clientId', 'orderId', 'title', 'unit_price']);
    },
  );
});

/**
 * Whether a lax server could read `value` as a `type`: a numeric or blank string, a boolean word, null,
 * a fraction for an integer, a one-element or empty array.
 */
function coercibleTo(type: string, value: unknown): boolean {
  if (value === null || value === undefined) return true;
  if (Array.isArray(value)) return value.length < 2;
  if (typeof value === 'object') return Object.keys(value).length === 0;
  if (type === 'integer' || type === 'number') {
    if (typeof value === 'string')
      return value.trim() === '' || !Number.isNaN(Number(value)) || /\d|^(nan|inf|infinity)$/i.test(value);
    // pydantic's lax mode reads true as 1, and Python's isinstance(True, int) holds (indep109).
    return typeof value === 'boolean' || (type === 'integer' && typeof value === 'number');
  }
  if (type === 'boolean') {
    if (typeof value === 'number') return true;
    if (typeof value === 'string')
      return /^(true|false|yes|no|on|off|y|n|t|f|1|0|)$/i.test(value.trim()) || /\d/.test(value);
  }
  // Jackson, Gson and Json.NET write a number or a boolean given for a string as its text (indep104).
  return type === 'string' && (typeof value === 'number' || typeof value === 'boolean');
}

test.describe('wrong-type values (valueNotOfType)', () => {
  for (const type of ['string', 'integer', 'number', 'boolean', 'array', 'object']) {
    test(`a value for a ${type} field is of another JSON type, and not one a lax server would coerce`, () => {
      const schema = { type };
      fc.assert(
        fc.property(valueNotOfType(type), (value) => {
          assert.equal(schemas().ajv.validate(schema, value), false, `${JSON.stringify(value)} is not a ${type}`);
          assert.equal(coercibleTo(type, value), false, `${JSON.stringify(value)} could be read as a ${type}`);
        }),
        { numRuns: 1000 },
      );
    });
  }

  test(
    'no numeric string for a number or an integer field ("123" is the likeliest slip, and coercible); ' +
      'no null anywhere',
    () => {
      for (const type of ['integer', 'number']) {
        const values = fc.sample(valueNotOfType(type), { seed: 5, numRuns: 2000 });
        expect(values.filter((v) => typeof v === 'string' && /\d/.test(v))).toEqual([]);
        expect(values.some((v) => typeof v === 'string')).toBe(true); // non-numeric strings do come up
      }
      for (const type of ['string', 'integer', 'number', 'boolean'])
        expect(fc.sample(valueNotOfType(type), { seed: 6, numRuns: 1000 })).not.toContain(null);
      // Lists and objects for a string: Jackson's defaults carry out a number or a boolean as its text.
      const forString = fc.sample(valueNotOfType('string'), { seed: 7, numRuns: 500 });
      expect(forString.filter((v) => typeof v !== 'object')).toEqual([]);
      for (const type of ['string', 'integer', 'number', 'boolean'])
        expect(coercibleTo(type, wrongTypeValue(type)), `wrongTypeValue('${type}')`).toBe(false);
    },
  );

  test('the client update (operation 1, OP1-FIELD-TYPES is a MUST) is only ever retyped with such values', async ({
    bodies,
  }) => {
    const typed = new Map(
      fieldsOf('client.request')
        .filter((f) => f.type)
        .map((f) => [f.name, f.type ?? '']),
    );
    fc.assert(
      fc.property(bodyWithFieldRetyped('client.request', bodies.client()), ({ field, body }) => {
        assert.equal(
          coercibleTo(typed.get(field) ?? '', body[field]),
          false,
          `${field}: ${JSON.stringify(body[field])}`,
        );
      }),
      { numRuns: 1000 },
    );
  });
});

test.describe('cart items (§4.5)', () => {
  test(
    'a cart array is 1 to 3 items, every one bad (an unknown product or a disallowed type), ' +
      'and schema-valid: its invalidity is semantic',
    async ({ bodies, config }) => {
      const item = bodies.cartItem();
      const data = { missingProductId: config.missingProductId, disallowedType: config.cartDisallowedType };
      fc.assert(
        fc.property(badCartItems(item, data), ({ items, itemDefects, defects }) => {
          assert.deepEqual(verdict('cart-items.request', items).errors, []);
          assert.ok(items.length >= 1 && items.length <= 3, `${items.length} items`);
          assert.equal(itemDefects.length, items.length);
          items.forEach((bad, i) => {
            // No valid item: each is the configured one with exactly its one defect, and its amount or none.
            assert.ok(bad.amount === item.amount || bad.amount === 0, `amount ${String(bad.amount)}`);
            const expected =
              itemDefects[i] === 'unknown-product'
                ? { ...item, productId: data.missingProductId, amount: bad.amount }
                : { ...item, type: data.disallowedType, amount: bad.amount };
            assert.ok(bad.productId === data.missingProductId || bad.type === data.disallowedType, 'a bad item');
            assert.deepEqual(bad, expected);
          });
          assert.deepEqual(
            defects,
            ['unknown-product', 'disallowed-type'].filter((d) => itemDefects.includes(d as never)),
          );
        }),
        RUNS,
      );
      const kinds = new Set(
        fc.sample(badCartItems(item, data), { seed: 2, numRuns: 200 }).map((c) => c.defects.join('+')),
      );
      expect([...kinds].sort()).toEqual(['disallowed-type', 'unknown-product', 'unknown-product+disallowed-type']);
    },
  );

  test('cart arrays shrink to one bad item (built with map, so fast-check can shrink them)', async ({
    bodies,
    config,
  }) => {
    const arb = badCartItems(bodies.cartItem(), {
      missingProductId: config.missingProductId,
      disallowedType: config.cartDisallowedType,
    });
    const details = fc.check(
      fc.property(arb, (c) => c.items.length < 3),
      { seed: 3 },
    );
    expect(details.failed).toBe(true);
    expect(details.counterexample?.[0].items).toHaveLength(3);
    const any = fc.check(
      fc.property(arb, (c) => c.items.length === 0),
      { seed: 3 },
    ); // fails for every array
    expect(any.counterexample?.[0].items).toEqual([{ ...bodies.cartItem(), productId: config.missingProductId }]);
  });
});

const ASTRAL = /[\u{10000}-\u{10FFFF}]/u;
const NON_ASCII = /[^ -~]/; // a character outside printable ASCII

test.describe('valid input of any length and characters (§8)', () => {
  for (const operation of Object.keys(VALID_BODY_INPUTS) as BodyOperation[]) {
    const { number, requestSchema: schema = '' } = OPERATIONS[operation];
    test(`every valid body of operation ${number} validates against ${schema}, its examples too`, async ({
      bodies,
    }) => {
      const { arbitrary, examples } = validBodyInputs(operation, bodies);
      const { kept = [], optional = [] } = VALID_BODY_INPUTS[operation] as ValidBodyOptions;
      const base = (VALID_BODY_INPUTS[operation].base as (b: typeof bodies) => Record<string, unknown>)(bodies);
      expect(examples.length, 'an example per text of TEXT_EXAMPLES at least').toBeGreaterThanOrEqual(3);
      for (const example of examples) expect(verdict(schema, example).errors, JSON.stringify(example)).toEqual([]);
      fc.assert(
        fc.property(arbitrary, (body) => {
          assert.deepEqual(verdict(schema, body).errors, []);
          const required = Object.keys(base).filter((field) => !optional.includes(field));
          assert.deepEqual(
            Object.keys(body).filter((field) => !optional.includes(field)),
            required,
            'the configured fields, no more, no fewer, but for those that may be left out',
          );
          for (const field of Object.keys(body)) assert.ok(field in base, `${field} is a configured field`);
          for (const field of kept) assert.deepEqual(body[field], base[field], `${field} is kept`);
        }),
        RUNS,
      );
    });
  }

  test('a client update leaves out or sends each optional field of §4.1, secondaryPhone also as drawn text', async ({
    bodies,
  }) => {
    // indep100: secondaryPhone and clientWebsite were never sent by the property, so a fault in them passed unseen.
    const { arbitrary, examples } = validBodyInputs('updateClient', bodies);
    const configured = bodies.clientWithOptionalFields();
    const drawn = fc.sample(arbitrary, { numRuns: 300, seed: 7 });
    const phones = drawn.map((body) => body.secondaryPhone);
    expect(phones).toContain(undefined);
    expect(phones).toContain(configured.secondaryPhone);
    expect(phones.some((p) => p !== undefined && p !== configured.secondaryPhone)).toBe(true);
    expect(drawn.map((body) => body.clientWebsite)).toEqual(
      expect.arrayContaining([undefined, configured.clientWebsite]),
    );
    expect(examples.map((body) => body.secondaryPhone)).toEqual(expect.arrayContaining([...TEXT_EXAMPLES]));
  });

  test('a size control cuts the drawn texts to the configured values size, by every measure, keeping the rest', () => {
    // indep102: a limit of 250 characters answered 400 failed OP2-, OP3- and OP15-SUCCESS-SHAPE, where 413 passed;
    // indep108: a postal code refused for not matching the place must stay refused when cut, not pass as a size.
    const base = { direccion: 'Cordoba 1234', telefono: '+54 341 555 0100', codigoPostal: '2000', n: 1 };
    const drawn = { direccion: 'Ñandú '.repeat(50), telefono: 'عربي', codigoPostal: '0x,“ל0', n: 2 ** 53 - 1 };
    const control = configuredLengths(drawn, base);
    // 12 bytes at most: "Ñandú Ñan" is 9 characters and 12 bytes.
    expect(control?.direccion).toBe('Ñandú Ñan');
    expect(control?.codigoPostal).toBe('0x,');
    // What is no longer, and the other values, as drawn: only the size changes.
    expect({ ...control, direccion: drawn.direccion, codigoPostal: drawn.codigoPostal }).toEqual(drawn);
    expect(configuredLengths({ ...base, telefono: '1' }, base)).toBeUndefined();
    // A text whose first character is already too long: no control, the refusal stands as one of valid input.
    expect(configuredLengths({ ...base, codigoPostal: '𠀋𠀋' }, { ...base, codigoPostal: 'ab' })).toBeUndefined();
  });

  test('the integers of a body are also sent at 0, the zero value a server may take for a field left out', async ({
    bodies,
  }) => {
    // indep106: a Go server refused a clientPostalCode of 0 as missing; at 25 runs no draw sent 0.
    const { examples } = validBodyInputs('updateClient', bodies);
    expect(examples).toContainEqual(
      expect.objectContaining({ formatFiscalId: 0, taxCategoryId: 0, clientPostalCode: 0, clientCityId: 0 }),
    );
  });

  test('a unit_price of format float ranges as any number does, with 1e21 and 1e-7 among the examples', async ({
    bodies,
  }) => {
    // indep100: unit_price was only ever 1500.5 or 1501.5, the format taken for a constraint it is not.
    const { examples } = validBodyInputs('createPaymentPreference', bodies);
    const prices = examples.map((body) => body.unit_price);
    expect(prices).toEqual(expect.arrayContaining([1e21, 1e-7]));
  });

  test('every valid cart update validates: 1 to 8 items, amounts positive, the configured product of its type', async ({
    bodies,
  }) => {
    const configured = bodies.cartItem();
    // None may remove the configured product, which a link reads back meanwhile: §4.5 does not say how one is removed.
    const keepsConfigured = (items: Record<string, unknown>[]) =>
      items.every(
        (item) =>
          (item.amount as number) >= 1 &&
          Number.isSafeInteger(item.amount) &&
          (item.productId !== configured.productId || item.type === configured.type),
      );
    const { arbitrary, examples } = validCartInputs(bodies);
    for (const example of examples) {
      expect(verdict('cart-items.request', example).errors).toEqual([]);
      expect(keepsConfigured(example), JSON.stringify(example)).toBe(true);
    }
    fc.assert(
      fc.property(arbitrary, (items) => {
        assert.deepEqual(verdict('cart-items.request', items).errors, []);
        assert.ok(items.length >= 1 && items.length <= 8);
        assert.ok(keepsConfigured(items), JSON.stringify(items));
      }),
      RUNS,
    );
    // Types still range, over other products.
    const types = fc
      .sample(arbitrary, { numRuns: 200, seed: 1 })
      .flat()
      .map((item) => item.type);
    expect(new Set(types).size).toBeGreaterThan(10);
  });

  test('the utility of a valid category update stays in [0, 100], as the schema and §8 bound it', async ({
    bodies,
  }) => {
    fc.assert(
      fc.property(validBodyInputs('updateCategory', bodies).arbitrary, (body) => {
        assert.ok((body.utility as number) >= 0 && (body.utility as number) <= 100, `utility ${body.utility}`);
      }),
      RUNS,
    );
  });

  test('text ranges widely: 1 to 300 characters, accented Latin, other scripts, astral characters', () => {
    const texts = fc.sample(customerText(), { seed: 1, numRuns: 1000 });
    // A character is a code point, or an emoji sequence of two (👍🏽, 🇦🇷).
    expect(texts.filter((t) => t.trim() === '' || [...t].length > 2 * MAX_TEXT_LENGTH)).toEqual([]);
    expect(texts.some((t) => [...t].length >= 100)).toBe(true);
    expect(texts.some((t) => t.length <= 3)).toBe(true);
    expect(texts.some((t) => /[áéíóúñüçãõ]/i.test(t))).toBe(true);
    expect(texts.some((t) => /\p{Script=Cyrillic}|\p{Script=Han}|\p{Script=Arabic}|\p{Script=Hangul}/u.test(t))).toBe(
      true,
    );
    expect(texts.some((t) => ASTRAL.test(t))).toBe(true);
    expect([...(TEXT_EXAMPLES[0] ?? '')]).toHaveLength(MAX_TEXT_LENGTH);
    expect(TEXT_EXAMPLES.every((t) => NON_ASCII.test(t) && !/[/\\]/.test(t))).toBe(true);
    expect(ASTRAL.test(TEXT_EXAMPLES[2] ?? '')).toBe(true);
  });

  test('integers range to the safe edges, numbers stay finite', () => {
    const integers = fc.sample(integerAtEdges(), { seed: 2, numRuns: 500 });
    expect(integers.every((n) => Number.isSafeInteger(n))).toBe(true);
    expect(integers).toEqual(expect.arrayContaining([Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, 0, -1]));
    expect(fc.sample(numberAtEdges(), { seed: 3, numRuns: 500 }).every((n) => Number.isFinite(n))).toBe(true);
  });

  test('path values hold no separator and are not only dots; a DELETE id always has a character outside ASCII', () => {
    const kinds = { text: 'text', id: 'non-ascii-text', n: 'integer' } as const;
    const configured = { text: 'Cordoba 1234', n: 7001 };
    const examples = validPathExamples(configured, kinds);
    // Each example text, the path example with the characters a router decodes, and the two integer edges.
    expect(examples).toHaveLength(TEXT_EXAMPLES.length + 1 + 2);
    expect(examples.map((e) => e.text)).toContain(PATH_TEXT_EXAMPLE);
    fc.assert(
      fc.property(validPathParams(configured, kinds), (params) => {
        for (const value of [params.text, params.id].map(String)) {
          assert.ok(value.trim() !== '' && !/[/\\]/.test(value) && !/^\.+$/.test(value), JSON.stringify(value));
          // The percent-encoding the client applies never throws (no lone surrogate).
          encodeURIComponent(value);
        }
        assert.match(String(params.id), NON_ASCII);
        assert.ok(Number.isSafeInteger(params.n));
      }),
      RUNS,
    );
    expect(examples.every((e) => NON_ASCII.test(String(e.id)))).toBe(true);
  });

  test('a body shrinks to the configured one with only the field that matters changed (built with map)', async ({
    bodies,
  }) => {
    const details = fc.check(
      fc.property(validBodyInputs('updateClient', bodies).arbitrary, (body) => !ASTRAL.test(String(body.fiscalName))),
      { seed: 4, numRuns: 1000 },
    );
    expect(details.failed).toBe(true);
    const { fiscalName, ...rest } = details.counterexample?.[0] ?? {};
    const { fiscalName: _configured, ...configured } = bodies.client();
    expect(rest).toEqual(configured);
    expect([...String(fiscalName)].length, String(fiscalName)).toBeLessThanOrEqual(2);
  });
});

test.describe('the property runner relies on fast-check drawing the same values', () => {
  test('fc.sample with a seed yields the values fc.check runs first, for every arbitrary of the properties', async ({
    bodies,
    config,
  }) => {
    const full = { ...bodies.addressWithPlaceId(), ...bodies.addressWithProvince() };
    const arbitraries: Record<string, fc.Arbitrary<unknown>> = {
      utilityAbove100: categoryUpdateWithUtility(bodies.categoryUpdate(), utilityAbove100()),
      validCategoryUpdate: validCategoryUpdate(bodies.categoryUpdate()),
      addressCase: addressCase(full),
      addressCaseRefused: addressCase(full, { refusedOnly: true }),
      fieldDropped: bodyWithFieldDropped('category-update.request', bodies.categoryUpdate()),
      fieldRetyped: bodyWithFieldRetyped('client.request', bodies.client()),
      cart: badCartItems(bodies.cartItem(), {
        missingProductId: config.missingProductId,
        disallowedType: config.cartDisallowedType,
      }),
      validClient: validBodyInputs('updateClient', bodies).arbitrary,
      validCart: validCartInputs(bodies).arbitrary,
      validPath: validPathParams({ a: 'x', n: 1 }, { a: 'text', n: 'integer', id: 'non-ascii-text' }),
      stock: stockProbe(config.stockProductIds),
    };
    const examples = everyStockProbe(['a', 'b']);
    for (const [name, arbitrary] of Object.entries(arbitraries)) {
      for (const seed of [1, -42, 2_000_000_000]) {
        const seen: unknown[] = [];
        await fc.check(
          fc.asyncProperty(arbitrary, async (v) => {
            seen.push(v);
          }),
          { seed, numRuns: 50 + examples.length, examples: examples.map((e): [unknown] => [e]) },
        );
        expect(JSON.stringify(seen), `${name}, seed ${seed}`).toBe(
          JSON.stringify([...examples, ...fc.sample(arbitrary, { seed, numRuns: 50 })]),
        );
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
    // a type error is OP9-SUCCESS-SHAPE's
    expect(finalPriceProblem({ value: '100', iva: 21, finalPrice: 100 })).toBeUndefined();
  });
});

test('a coercion probe sends no fraction where the configured integer has none: never another valid id', () => {
  // Declared once: a key declared twice names neither declaration.
  const details = coercibleValueProbes(BODY_RULES.updateCartItems)[0]?.[1];
  const key = [details?.annotation ?? []].flat().find((a) => a.type === DECLARED_ANNOTATION)?.description;
  const cartBodies = (env: Record<string, string>) => {
    const config = loadConfig(env);
    const requests = declarationOf(key)?.requests({ bodies: validBodies(config), config }) ?? [];
    return requests.map(({ options }) => JSON.stringify(options.json));
  };
  const productIds = (bodies: string[]) => bodies.flatMap((body) => /"productId":([^,]*)/.exec(body)?.[1] ?? []);
  // Each read back as the configured product by a lax parser: the fraction truncated, the string parsed; and true,
  // which only a lax parser reads, as 1 (a strict one refuses it, whatever product 1 is).
  expect(new Set(productIds(cartBodies({ RSF_CART_PRODUCT_ID: '1001' })))).toEqual(
    new Set(['1001', '1001.5', '"1001"', 'true']),
  );
  // From 2^52 on a double holds no fraction: 9007199254740989 + 0.5 is 9007199254740990, another product.
  const huge = productIds(cartBodies({ RSF_CART_PRODUCT_ID: '9007199254740989' }));
  expect(new Set(huge)).toEqual(new Set(['9007199254740989', '"9007199254740989"', 'true']));
});
