// Valid input as real customers type it (issue 23): the spec sets no maximum length and no character set for strings
// (§8: limits not shown), so a valid string is any text: from 1 to a few hundred characters, Latin with accents, other
// scripts, characters outside the Basic Multilingual Plane. Numbers range to their edges within what the schema
// allows. Bodies start from the configured valid body, and each field either keeps its value or takes a generated one
// (map over a record: shrinking leads back to the configured value wherever a field does not matter).
import fc from 'fast-check';
import type { ValidBodies } from '../model/bodies';
import { OPERATIONS, type OperationName } from '../model/operations';
import { constrainedFields, fieldsOf, schemas } from '../model/schema-registry';
import { utilityInRange } from './category';

type Body = Record<string, unknown>;

const ASCII = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'];
/** What people type between words: no '<', '>' or '\', which are markup and escapes rather than text. */
const PUNCTUATION = [...` .,;:-'"&#()+@!?¿¡%ºª°·–—’“”`];
const ACCENTED = [...'áéíóúñüÁÉÍÓÚÑÜàèìòùâêîôûçãõäöëïÿœæøåßÀÈÇÃÕÄÖØÅŒÆ'];
/** Letters that stand alone (no combining marks): Greek, Cyrillic, Hebrew, Arabic, Devanagari, Thai, CJK, Hangul. */
const OTHER_SCRIPTS = [...'αβγδλΩΣπЖДЯжщыאבגשלعربيةकखगमनกขคง中文漢字日本語東京한국어서울'];
/** Outside the Basic Multilingual Plane: two UTF-16 code units each (four UTF-8 bytes), some two code points. */
const ASTRAL = ['😀', '🛒', '📦', '👍🏽', '🇦🇷', '𝔘', '𝄞', '𠀋', '𡈽', '🙂'];

/** Characters of any kind, ordinary ones most often; shrinks towards 'a'. */
function character(exclude: readonly string[] = []): fc.Arbitrary<string> {
  const from = (chars: readonly string[]) => fc.constantFrom(...chars.filter((c) => !exclude.includes(c)));
  return fc.oneof(
    { arbitrary: from(ASCII), weight: 6 },
    { arbitrary: from(PUNCTUATION), weight: 2 },
    { arbitrary: from(ACCENTED), weight: 2 },
    { arbitrary: from(OTHER_SCRIPTS), weight: 2 },
    { arbitrary: from(ASTRAL), weight: 1 },
  );
}

/** The longest generated text, in characters (code points or emoji sequences). */
export const MAX_TEXT_LENGTH = 300;

function textOf(unit: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc
    .oneof(
      fc.string({ unit, minLength: 1, maxLength: 20 }),
      fc.string({ unit, minLength: 1, maxLength: MAX_TEXT_LENGTH, size: 'max' }),
    )
    .filter((s) => s.trim() !== ''); // blank text may be refused as empty
}

/** Text a customer may type: 1 to MAX_TEXT_LENGTH characters, not only spaces. */
export function customerText(): fc.Arbitrary<string> {
  return textOf(character());
}

/**
 * Text for a path segment: no '/' or '\' (servers and proxies may take an escaped one for a separator) and not
 * only dots ('.' and '..' are path steps, not values).
 */
export function pathText(): fc.Arbitrary<string> {
  return textOf(character(['/', '\\'])).filter((s) => !/^\.+$/.test(s));
}

/** Path text with at least one character outside ASCII: it names no product an account has (a DELETE target). */
export function nonAsciiPathText(): fc.Arbitrary<string> {
  return fc
    .tuple(pathText(), fc.constantFrom(...ACCENTED, ...OTHER_SCRIPTS, ...ASTRAL))
    .map(([text, other]) => `${other}${text}`);
}

/** Deterministic examples, each sent first: a long accented Latin text, other scripts, astral characters. */
export const TEXT_EXAMPLES: readonly string[] = [
  'Ñandú Pérez-Güemes & Cía., 3º "B", São João d’Ávila, Ærøskøbing, Œuvre à la façon de Zürich; '
    .repeat(4)
    .slice(0, MAX_TEXT_LENGTH),
  'Ελληνικά Кириллица עברית العربية हिन्दी ไทย 中文 日本語 한국어',
  '𝔘𝔫𝔦𝔠𝔬𝔡𝔢 😀 🛒📦 𠀋𡈽 🇦🇷 𝄞 👍🏽',
  // Accents as combining marks (NFD), as macOS keyboards and text pasted from a PDF write them (indep100).
  'José María Peña, Crème brûlée, Ångström, Đoàn Thị Hương'.normalize('NFD'),
];

/**
 * A path value with the characters a router must decode once and only once (RFC 3986 §2.4): a percent sign, a plus,
 * and delimiters of a query and a fragment, besides letters beyond ASCII. A router that decodes twice reads "50% +"
 * as a broken escape; one that reads + as a space, or stops at ?, gets another value.
 */
export const PATH_TEXT_EXAMPLE = 'Rebaja 50% + 3=4 ¿año? #1 &c.';

/** Text written on several lines, as a message is: line breaks of both kinds, and a blank line between paragraphs. */
export const MULTILINE_TEXT = 'Hola,\nel pedido llegó con la caja rota.\r\n\r\nGracias, Ana';

/** JSON integers at the edges: 32-bit and 53-bit (the largest JavaScript and most parsers read exactly). */
export const INTEGER_EDGES: readonly number[] = [
  0,
  -1,
  2 ** 31 - 1,
  -(2 ** 31),
  2 ** 32,
  Number.MAX_SAFE_INTEGER,
  Number.MIN_SAFE_INTEGER,
];

/** Integers, the edges first. */
export function integerAtEdges(): fc.Arbitrary<number> {
  return fc.oneof(fc.constantFrom(...INTEGER_EDGES), fc.integer(), fc.maxSafeInteger());
}

/** Positive integers, the edges first. */
export function positiveIntegerAtEdges(): fc.Arbitrary<number> {
  return fc.oneof(
    fc.constantFrom(...INTEGER_EDGES.filter((n) => n > 0)),
    fc.integer({ min: 1 }),
    fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
  );
}

/** Finite JSON numbers, the edges first: the smallest and largest doubles, fractions. */
export function numberAtEdges(): fc.Arbitrary<number> {
  return fc.oneof(
    fc.constantFrom(0, 0.01, -0.5, Number.MIN_VALUE, Number.MAX_VALUE, -Number.MAX_VALUE, 1e-7, 123456789.123),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
  );
}

const VALUES: Record<string, () => fc.Arbitrary<unknown>> = {
  string: customerText,
  integer: integerAtEdges,
  number: numberAtEdges,
  boolean: fc.boolean,
};

/** The JSON Schema type of a JSON value (for fields a free-form schema does not declare, §4.13). */
function jsonType(value: unknown): string {
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
}

export interface ValidBodyOptions {
  /** Fields that keep their configured value: they name the target's data, and no refusal reason covers another. */
  kept?: readonly string[];
  /** Values of a field whose schema constrains it (utility: at most 100, §8); others are left alone. */
  values?: Record<string, fc.Arbitrary<unknown>>;
  /** Its text is written on several lines (a message): the examples hold MULTILINE_TEXT too. */
  lines?: boolean;
  /** Optional fields of `base` that a draw may also leave out (§4.1's secondaryPhone and clientWebsite). */
  optional?: readonly string[];
}

/** The fields of `base` that are generated, each with its type: not kept, not constrained unless given values. */
function generatedFields(schema: string, base: Body, options: ValidBodyOptions): [string, string][] {
  const declared = new Map(fieldsOf(schema).map((f) => [f.name, f.type]));
  const constrained = constrainedFields(schema);
  return Object.keys(base).flatMap((name): [string, string][] => {
    if (options.kept?.includes(name)) return [];
    const type = declared.has(name) ? declared.get(name) : jsonType(base[name]);
    if (options.values?.[name]) return [[name, type ?? '']];
    if (constrained.has(name) || type === undefined || !VALUES[type]) return [];
    return [[name, type]];
  });
}

/** A drawn value that stands for an optional field left out of the body. */
const LEFT_OUT = Symbol('left out');

/**
 * Valid bodies of `schema`: `base` (the configured valid body) with each generated field either kept or given a
 * value of its type (text, an integer or a number at the edges, a boolean), and each optional field also left out.
 */
export function validBody(schema: string, base: Body, options: ValidBodyOptions = {}): fc.Arbitrary<Body> {
  const generated = new Map(
    generatedFields(schema, base, options).map(([name, type]) => {
      const values = options.values?.[name] ?? (VALUES[type] as () => fc.Arbitrary<unknown>)();
      return [name, fc.oneof({ withCrossShrink: true }, fc.constant(base[name]), values)] as const;
    }),
  );
  // An optional field is left out, or sent as the configured value or a generated one: left out first, so that a
  // failure shrinks to the body without it when the field is not to blame.
  for (const name of options.optional ?? [])
    generated.set(
      name,
      fc.oneof({ withCrossShrink: true }, fc.constant(LEFT_OUT), generated.get(name) ?? fc.constant(base[name])),
    );
  return fc
    .record(Object.fromEntries(generated))
    .map((values) => Object.fromEntries(Object.entries({ ...base, ...values }).filter(([, v]) => v !== LEFT_OUT)));
}

/**
 * The examples of validBody, sent before the generated bodies: every generated string field set to each text of
 * TEXT_EXAMPLES in turn (and to MULTILINE_TEXT, with `lines`), each generated boolean field the other way, then every
 * generated integer field at its largest and at its smallest edge and at 0, every generated number field at 1e21 and
 * 1e-7 (written with an exponent), then each numeric field that is not kept alone one above its configured value: an
 * ordinary other value, which a target carries out more often than an edge, so that its success answer to other data
 * than the configured is judged too (a quantity of 2, say).
 */
export function validBodyExamples(schema: string, base: Body, options: ValidBodyOptions = {}): Body[] {
  const fields = generatedFields(schema, base, options).filter(([name]) => !options.values?.[name]);
  const set = (type: string, value: unknown): Body => ({
    ...base,
    ...Object.fromEntries(fields.filter(([, t]) => t === type).map(([name]) => [name, value])),
  });
  const has = (type: string) => fields.some(([, t]) => t === type);
  // Constrained fields too (a quantity whose type is open, a price of format float), where the value stays valid.
  const oneAbove = Object.entries(base).flatMap(([name, value]) => {
    if (options.kept?.includes(name) || options.values?.[name] || typeof value !== 'number') return [];
    const body = { ...base, [name]: value + 1 };
    return Number.isSafeInteger(Math.trunc(value) + 1) && schemas().validate(schema, body).valid ? [body] : [];
  });
  // Each boolean the other way (a category hidden, when the configured one is shown): a draw may never flip it.
  const flipped = fields
    .filter(([name, type]) => type === 'boolean' && typeof base[name] === 'boolean')
    .map(([name]) => ({ ...base, [name]: !base[name] }));
  return [
    ...(has('string') ? TEXT_EXAMPLES.map((text) => set('string', text)) : []),
    ...(has('string') && options.lines ? [set('string', MULTILINE_TEXT)] : []),
    ...flipped,
    // And 0, which Go's, Java's and C#'s zero values make a server take for a field left out (indep106).
    ...(has('integer')
      ? [set('integer', Number.MAX_SAFE_INTEGER), set('integer', Number.MIN_SAFE_INTEGER), set('integer', 0)]
      : []),
    // Numbers JSON writes with an exponent, which a parser of plain decimals refuses (indep100: a price of 1e+21).
    ...(has('number') ? [set('number', 1e21), set('number', 1e-7)] : []),
    ...oneAbove,
  ];
}

/**
 * How valid cart items are made from the configured one. §4.5 leaves open how an item is removed, and whether by its
 * amount or by its type: an amount of 0 or less, or another type, may remove the configured product from the cart,
 * which a link reads back at the same time in another worker (links.spec.ts, LINK-CART-AMOUNT-IN-PRODUCT). So amounts
 * stay positive, and an item of the configured product keeps the configured type (types range over other products).
 */
const CART_ITEM_OPTIONS: ValidBodyOptions = { values: { amount: positiveIntegerAtEdges() } };

/** Valid cart updates (§4.5): 1 to 3 items, none of which may remove the configured product (CART_ITEM_OPTIONS). */
export function validCartItems(item: Body): fc.Arbitrary<Body[]> {
  const items = validBody('cart-items.request', item, CART_ITEM_OPTIONS).map((generated) =>
    generated.productId === item.productId ? { ...generated, type: item.type } : generated,
  );
  // §4.5 shows no limit on the items of an update: up to 8 (indep100's server failed from 6 on).
  return fc.array(items, { minLength: 1, maxLength: 8 });
}

interface BodyInput extends ValidBodyOptions {
  base: (bodies: ValidBodies) => Body;
}

/** How the valid bodies of each operation with an object body are made from its configured body. */
export const VALID_BODY_INPUTS = {
  // With §4.1's optional fields, each left out or sent: secondaryPhone as text, clientWebsite (a URI) as configured.
  updateClient: { base: (b) => b.clientWithOptionalFields(), optional: ['secondaryPhone', 'clientWebsite'] },
  // placeId names a locality of the target, idDirCli its address: §4.2 and §4.3 list no refusal of another.
  createShippingAddress: { base: (b) => b.addressWithPlaceId(), kept: ['placeId'] },
  updateShippingAddress: { base: (b) => b.addressUpdate(), kept: ['placeId', 'idDirCli'] },
  updateCategory: { base: (b) => b.categoryUpdate(), values: { utility: utilityInRange() } },
  createPaymentPreference: { base: (b) => b.paymentPreference() },
  createPostSale: { base: (b) => b.postSale() },
  // A message is the one text of the API that people write on several lines, and §4.15 lists no refusal of one.
  sendChannelMessage: { base: (b) => b.channelMessage(), lines: true },
} as const satisfies Partial<Record<OperationName, BodyInput>>;

export type BodyOperation = keyof typeof VALID_BODY_INPUTS;

/** A text's length by each measure a server may limit: characters, UTF-16 units, UTF-8 bytes. */
const measures = (text: string): [number, number, number] => [[...text].length, text.length, Buffer.byteLength(text)];

/**
 * The drawn `body` with each text that is longer than its configured value in `base`, by any measure a server may
 * limit (characters, UTF-16 units, UTF-8 bytes), cut to its longest start that is no longer by any; undefined when no
 * text is longer, or a cut would leave nothing. The cut keeps the drawn characters at a size the target takes: carried
 * out, the drawn body was refused for its size (§8), not for its characters or its values (indep108: a postal code
 * that does not match the place is refused at any length).
 */
export function cutToConfiguredLengths(body: Body, base: Body): Body | undefined {
  let cut = false;
  const entries = Object.entries(body).map(([name, value]) => {
    const configured = base[name];
    if (typeof value !== 'string' || typeof configured !== 'string') return [name, value];
    const limits = measures(configured);
    if (measures(value).every((n, i) => n <= (limits[i] as number))) return [name, value];
    let start = '';
    for (const character of value) {
      if (measures(start + character).some((n, i) => n > (limits[i] as number))) break;
      start += character;
    }
    cut = true;
    return [name, start];
  });
  if (!cut || entries.some(([name, value]) => value === '' && body[name as string] !== '')) return undefined;
  return Object.fromEntries(entries);
}

/** The configured body the valid bodies of `operation` are made from. */
export function configuredBodyOf(operation: BodyOperation, bodies: ValidBodies): Body {
  return (VALID_BODY_INPUTS[operation] as BodyInput).base(bodies);
}

/** The valid bodies of `operation` and their examples, from the configured body. */
export function validBodyInputs(
  operation: BodyOperation,
  bodies: ValidBodies,
): { arbitrary: fc.Arbitrary<Body>; examples: Body[] } {
  const { base, ...options } = VALID_BODY_INPUTS[operation] as BodyInput;
  const schema = OPERATIONS[operation].requestSchema;
  if (!schema) throw new Error(`${operation} has no request schema`);
  return {
    arbitrary: validBody(schema, base(bodies), options),
    examples: validBodyExamples(schema, base(bodies), options),
  };
}

/** The valid cart updates of operation 5 and their examples (each example item alone). */
export function validCartInputs(bodies: ValidBodies): { arbitrary: fc.Arbitrary<Body[]>; examples: Body[][] } {
  const configured = bodies.cartItem();
  // The configured product keeps its type (CART_ITEM_OPTIONS): the example of its type one above is left out.
  const items = validBodyExamples('cart-items.request', configured, CART_ITEM_OPTIONS).filter(
    (item) => item.productId !== configured.productId || item.type === configured.type,
  );
  // The amount at its positive edges, on the one item no other refusal reason reaches (a known product, an allowed
  // type): edges elsewhere are refused as an unknown product or a type not allowed, before the amount is read.
  const amounts = INTEGER_EDGES.filter((n) => n > 0).map((amount) => [{ ...configured, amount }]);
  // And two items at once, the configured one twice: a success answer to several items is judged too; and six.
  return {
    arbitrary: validCartItems(configured),
    examples: [...items.map((item) => [item]), ...amounts, [configured, configured], Array(6).fill(configured)],
  };
}

/** How a path parameter varies: any text, an integer (§4.14), or text that names nothing on the target. */
export type PathValue = 'text' | 'integer' | 'non-ascii-text';

type Params = Record<string, string | number>;

const PATH_VALUES: Record<PathValue, () => fc.Arbitrary<string | number>> = {
  text: pathText,
  integer: integerAtEdges,
  'non-ascii-text': nonAsciiPathText,
};

/**
 * Valid path parameters: each of `kinds` takes a generated value, or (except 'non-ascii-text') its configured one
 * from `configured`, which names the target's data.
 */
export function validPathParams(configured: Params, kinds: Record<string, PathValue>): fc.Arbitrary<Params> {
  const params = Object.entries(kinds).map(([name, kind]) => {
    const generated = PATH_VALUES[kind]();
    const value = configured[name];
    const arbitrary =
      kind === 'non-ascii-text' || value === undefined
        ? generated
        : fc.oneof({ withCrossShrink: true }, fc.constant(value), generated);
    return [name, arbitrary] as const;
  });
  return fc.record(Object.fromEntries(params)).map((values) => ({ ...configured, ...values }));
}

/**
 * The examples of validPathParams: the text parameters set to each text of TEXT_EXAMPLES and PATH_TEXT_EXAMPLE, then
 * the integers at their largest and smallest edges; the other parameters keep their configured value (or take the
 * first example text).
 */
export function validPathExamples(configured: Params, kinds: Record<string, PathValue>): Params[] {
  const names = Object.keys(kinds);
  const isInteger = (name: string) => kinds[name] === 'integer';
  const example = (text: string | undefined, integer: number | undefined): Params =>
    Object.fromEntries(
      names.map((name) => {
        const own = isInteger(name) ? integer : text;
        const fallback = kinds[name] === 'non-ascii-text' ? undefined : configured[name];
        return [name, own ?? fallback ?? (isInteger(name) ? 0 : (TEXT_EXAMPLES[0] as string))];
      }),
    );
  // Every example text has characters outside ASCII, so each fits a 'non-ascii-text' parameter too.
  const texts = names.some((name) => !isInteger(name)) ? [...TEXT_EXAMPLES, PATH_TEXT_EXAMPLE] : [];
  const integers = names.some(isInteger) ? [Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER] : [];
  return [
    ...texts.map((text) => ({ ...configured, ...example(text, undefined) })),
    ...integers.map((n) => ({ ...configured, ...example(undefined, n) })),
  ];
}
