// One field of a valid body broken, the ways the request schema allows to name: a required field dropped, or
// a field of a declared type given a value of another JSON type. Fields and types are read from the schema.
import fc from 'fast-check';
import { requiredFields, typedFields, without } from '../bodies';

type Body = Record<string, unknown>;

export interface FieldMutation {
  field: string;
  mutation: 'dropped' | 'retyped';
  body: Body;
}

const TEXT = fc.string({ maxLength: 12 });
const NUMERIC_TEXT = fc.integer().map(String); // the likeliest slip: "2000" for 2000
const INTEGER = fc.integer();
const FRACTION = fc.double({ min: -1e6, max: 1e6, noNaN: true }).filter((n) => !Number.isInteger(n));
const BOOLEAN = fc.boolean();
const NULL = fc.constant(null);
const ARRAY = fc.array(fc.integer(), { maxLength: 2 });
const OBJECT = fc.record({ value: fc.integer() }, { requiredKeys: [] });

/** JSON values that are not of `type` (a JSON Schema type name). A fraction is not an integer; "7" is not a number. */
export function valueNotOfType(type: string): fc.Arbitrary<unknown> {
  switch (type) {
    case 'string': return fc.oneof(INTEGER, FRACTION, BOOLEAN, NULL, ARRAY, OBJECT);
    case 'integer': return fc.oneof(NUMERIC_TEXT, TEXT, FRACTION, BOOLEAN, NULL, ARRAY, OBJECT);
    case 'number': return fc.oneof(NUMERIC_TEXT, TEXT, BOOLEAN, NULL, ARRAY, OBJECT);
    case 'boolean': return fc.oneof(fc.constantFrom('true', 'false'), TEXT, fc.constantFrom(0, 1), NULL, ARRAY, OBJECT);
    case 'array': return fc.oneof(TEXT, INTEGER, BOOLEAN, NULL, OBJECT);
    default: return fc.oneof(TEXT, INTEGER, BOOLEAN, NULL, ARRAY);
  }
}

function names(fields: { name: string }[], schema: string, what: string): string[] {
  if (fields.length === 0) throw new Error(`schemas/${schema}.schema.json has no ${what} fields`);
  return fields.map((f) => f.name);
}

/** `base` without one of the schema's required fields. */
export function bodyWithFieldDropped(schema: string, base: Body): fc.Arbitrary<FieldMutation> {
  return fc.constantFrom(...names(requiredFields(schema), schema, 'required')).map((field) => ({ field, mutation: 'dropped' as const, body: without(base, field) }));
}

/**
 * `base` with one field of a single declared type set to a value of another type. Fields whose type the spec
 * leaves open (the schema allows several) are not probed; optional typed fields are, as they are typed too.
 */
export function bodyWithFieldRetyped(schema: string, base: Body): fc.Arbitrary<FieldMutation> {
  const fields = typedFields(schema);
  names(fields, schema, 'typed');
  return fc
    .constantFrom(...fields)
    .chain((f) => valueNotOfType(f.type ?? '').map((value) => ({ field: f.name, mutation: 'retyped' as const, body: { ...base, [f.name]: value } })));
}

/** Either kind of broken field, dropped first (it shrinks towards a dropped field). */
export function bodyWithFieldBroken(schema: string, base: Body): fc.Arbitrary<FieldMutation> {
  return fc.oneof(bodyWithFieldDropped(schema, base), bodyWithFieldRetyped(schema, base));
}
