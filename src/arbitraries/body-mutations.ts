// One field of a valid body broken, the ways the request schema allows to name: a required field dropped, or
// a field of a declared type given a value of another JSON type. Fields and types are read from the schema.
import fc from 'fast-check';
import { requiredFields, typedFields, without } from '../model/bodies';
import { isArraySchema, schemas } from '../model/schema-registry';

type Body = Record<string, unknown>;

export interface FieldMutation {
  field: string;
  mutation: 'dropped' | 'retyped' | 'null';
  body: Body;
}

/**
 * Words that lax parsers turn into a number or a boolean (Python's float('inf'), 'yes' → true, …): never used as
 * "text", so that a wrong-type value cannot be read as the right type by a conforming server's coercion.
 */
const COERCIBLE_WORDS = /^(nan|inf|infinity|true|false|yes|no|on|off|y|n|t|f|null|none|undefined|nil)$/i;
/** Letters only: no digit, sign, dot or space, so it is no number ("123", " ", "1e5", "0x1f" cannot come up). */
const WORD = fc
  .string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz'), minLength: 1, maxLength: 12 })
  .filter((s) => !COERCIBLE_WORDS.test(s));
const INTEGER = fc.integer();
const BOOLEAN = fc.boolean();
/** Two or three elements: no single value to unwrap ([5] → 5), and never empty ([] → 0, "" or false). */
const ARRAY = fc.array(fc.integer(), { minLength: 2, maxLength: 3 });
/** Never empty. */
const OBJECT = fc.record({ value: fc.integer() });

/**
 * JSON values that are clearly of another JSON type than `type` (a JSON Schema type name), and that no common
 * coercion turns into one: for a number or an integer, no numeric string ("123"), no fraction (truncated to an
 * integer it would be one), no boolean (pydantic's lax mode takes true for 1, and Python's isinstance(True, int)
 * holds: indep109's clientProvinceId: true was carried out, and failed a MUST), no null (read as "not sent", or
 * 0); for a boolean, no 0/1 nor "true"/"yes"; for a string, no number nor boolean, which Jackson, Gson and Json.NET
 * write as text by default (indep104: 12345 for whatsApp was carried out, and failed a MUST). null is never used:
 * many servers read it as an absent optional field.
 */
export function valueNotOfType(type: string): fc.Arbitrary<unknown> {
  switch (type) {
    case 'string':
      return fc.oneof(ARRAY, OBJECT);
    case 'integer':
    case 'number':
      return fc.oneof(WORD, ARRAY, OBJECT);
    case 'boolean':
      return fc.oneof(WORD, ARRAY, OBJECT);
    case 'array':
      return fc.oneof(WORD, INTEGER, BOOLEAN, OBJECT);
    case 'object':
      return fc.oneof(WORD, INTEGER, BOOLEAN, ARRAY);
    default:
      throw new Error(`valueNotOfType: no wrong-type values for JSON Schema type "${type}"`);
  }
}

function names(fields: { name: string }[], schema: string, what: string): string[] {
  if (fields.length === 0) throw new Error(`schemas/${schema}.schema.json has no ${what} fields`);
  return fields.map((f) => f.name);
}

const dropped =
  (base: Body) =>
  (field: string): FieldMutation => ({ field, mutation: 'dropped', body: without(base, field) });

/** One of `bases` (a valid body, and the same with its optional fields) without one of the schema's required fields. */
export function bodyWithFieldDropped(schema: string, ...bases: [Body, ...Body[]]): fc.Arbitrary<FieldMutation> {
  const required = names(requiredFields(schema), schema, 'required');
  return fc.oneof(...bases.map((base) => fc.constantFrom(...required).map(dropped(base))));
}

/** Every required field dropped in turn from each base, in schema order: the whole domain of bodyWithFieldDropped. */
export function everyFieldDropped(schema: string, ...bases: [Body, ...Body[]]): FieldMutation[] {
  const required = names(requiredFields(schema), schema, 'required');
  return bases.flatMap((base) => required.map(dropped(base)));
}

/**
 * Each required field of `base` sent as null, where its schema takes no null. Read as absent or as of another type,
 * it is refused either way; null is never a wrong-type value of an optional field (valueNotOfType says why).
 */
export function everyRequiredFieldNull(schema: string, base: Body): FieldMutation[] {
  // The body of an array schema (cart items) is one of its items.
  const asSent = (body: Body) => (isArraySchema(schema) ? [body] : body);
  return names(requiredFields(schema), schema, 'required').flatMap((field) => {
    const body = { ...base, [field]: null };
    return schemas().validate(schema, asSent(body)).valid ? [] : [{ field, mutation: 'null' as const, body }];
  });
}

/** `base` without any of the schema's required fields: a body wrong in several fields at once. */
export function everyRequiredFieldDropped(schema: string, base: Body): FieldMutation {
  const required = names(requiredFields(schema), schema, 'required');
  return { field: required.join(', '), mutation: 'dropped', body: required.reduce(without, base) };
}

/**
 * `base` with one field of a single declared type set to a value of another type. Fields whose type the spec
 * leaves open (the schema allows several) are not probed; optional typed fields are, as they are typed too.
 */
export function bodyWithFieldRetyped(schema: string, base: Body): fc.Arbitrary<FieldMutation> {
  const fields = typedFields(schema);
  names(fields, schema, 'typed');
  return fc.constantFrom(...fields).chain((f) =>
    valueNotOfType(f.type ?? '').map((value) => ({
      field: f.name,
      mutation: 'retyped' as const,
      body: { ...base, [f.name]: value },
    })),
  );
}
