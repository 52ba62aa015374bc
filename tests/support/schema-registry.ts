// The one Ajv instance of the project. Every schema in schemas/ is added by $id, and compiled once, here, on
// first use: a worker that needs three schemas does not pay for forty (tests/self/schemas.spec.ts compiles all).
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

export const SCHEMA_DIR = resolve(__dirname, '../../schemas');
export const SCHEMA_ID_BASE = 'https://schemas.reseller-storefront.test/';
export const SCHEMA_SUFFIX = '.schema.json';

/** Short name of a schema: its file name without `.schema.json`, e.g. `prices.response`. */
export type SchemaName = string;

export interface SchemaVerdict {
  valid: boolean;
  /** One line per ajv error, e.g. `/0/finalPrice must be number`. */
  errors: string[];
}

function createAjv(): Ajv2020 {
  // The schemas are checked against the 2020-12 meta-schema once, by tests/self/schemas.spec.ts, not by every process
  // that loads them: that check costs each worker more than compiling the schemas its tests use.
  const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true, validateSchema: false });
  addFormats(ajv);
  // OpenAPI formats: they document the wire type, and constrain nothing beyond "type".
  ajv.addFormat('float', { type: 'number', validate: () => true });
  ajv.addFormat('double', { type: 'number', validate: () => true });
  ajv.addFormat('int32', {
    type: 'number',
    validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31,
  });
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isInteger(n) });
  ajv.addFormat('password', { type: 'string', validate: () => true });
  return ajv;
}

function loadSchemaFiles(): Map<SchemaName, object> {
  const files = readdirSync(SCHEMA_DIR)
    .filter((f) => f.endsWith(SCHEMA_SUFFIX))
    .sort();
  return new Map(
    files.map((f) => [
      f.slice(0, -SCHEMA_SUFFIX.length),
      JSON.parse(readFileSync(join(SCHEMA_DIR, f), 'utf8')) as object,
    ]),
  );
}

export function schemaId(name: SchemaName): string {
  return `${SCHEMA_ID_BASE}${name}${SCHEMA_SUFFIX}`;
}

class SchemaRegistry {
  readonly ajv = createAjv();
  readonly sources = loadSchemaFiles();
  private readonly compiled = new Map<SchemaName, ValidateFunction>();

  constructor() {
    for (const schema of this.sources.values()) this.ajv.addSchema(schema);
  }

  /** The compiled validator of a schema; ajv compiles it (and what it references) once. */
  validator(name: SchemaName): ValidateFunction {
    let validate = this.compiled.get(name);
    if (validate) return validate;
    if (!this.sources.has(name)) throw new Error(`Unknown schema "${name}". Known: ${this.names.join(', ')}`);
    validate = this.ajv.getSchema(schemaId(name));
    if (!validate) throw new Error(`schemas/${name}${SCHEMA_SUFFIX}: its $id must be ${schemaId(name)}`);
    this.compiled.set(name, validate);
    return validate;
  }

  get names(): SchemaName[] {
    return [...this.sources.keys()];
  }

  validate(name: SchemaName, data: unknown): SchemaVerdict {
    const validate = this.validator(name);
    const valid = validate(data) as boolean;
    return { valid, errors: valid ? [] : formatErrors(validate.errors ?? []) };
  }
}

export function formatErrors(errors: ErrorObject[]): string[] {
  return errors.map((e) => {
    const where = e.instancePath === '' ? '(root)' : e.instancePath;
    const params =
      e.keyword === 'additionalProperties' || e.keyword === 'required' || e.keyword === 'enum' || e.keyword === 'const'
        ? ` ${JSON.stringify(e.params)}`
        : '';
    return `${where} ${e.message ?? e.keyword}${params}`;
  });
}

let registry: SchemaRegistry | undefined;

/** The registry, built on first use and then shared by everything in this process. */
export function schemas(): SchemaRegistry {
  registry ??= new SchemaRegistry();
  return registry;
}

interface ObjectSchema {
  $ref?: string;
  type?: string | string[];
  required?: string[];
  properties?: Record<string, ObjectSchema>;
  items?: ObjectSchema;
}

/** Follows a whole-file $ref (as the request schemas use for §2 resources) to the schema it names. */
function resolveRef(schema: ObjectSchema): ObjectSchema {
  let current = schema;
  for (let hops = 0; current.$ref && hops < 5; hops++) {
    const name = current.$ref.replace(/^.*\//, '').replace(/\.schema\.json$/, '');
    const target = schemas().sources.get(name);
    if (!target) throw new Error(`Unresolvable $ref ${current.$ref}`);
    current = target as ObjectSchema;
  }
  return current;
}

export interface FieldShape {
  name: string;
  required: boolean;
  /** The declared JSON type, or undefined when the schema allows several (the spec did not fix one). */
  type?: string;
}

/** The top-level fields of an object request schema (or of the items of an array schema), read from the schema. */
export function fieldsOf(name: SchemaName): FieldShape[] {
  let schema = resolveRef(schemas().sources.get(name) as ObjectSchema);
  if (schema.type === 'array' && schema.items) schema = resolveRef(schema.items);
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).map(([field, sub]) => {
    const type = resolveRef(sub).type;
    return { name: field, required: required.has(field), ...(typeof type === 'string' ? { type } : {}) };
  });
}
