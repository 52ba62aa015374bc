// The project's schema validators. Every schema in schemas/ is compiled by one Ajv instance, by $id, and the compiled
// code is cached on disk as one module (node_modules/.cache, keyed by the schemas, this file and the Ajv versions):
// a process that finds it loads the validators instead of loading Ajv and compiling, which cost each worker of a run
// about 50 ms of CPU. tests/self/schemas.spec.ts checks that the cached code judges as a fresh compile does.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { default as Ajv2020, ErrorObject, FormatDefinition, ValidateFunction } from 'ajv/dist/2020.js';

export const SCHEMA_DIR = resolve(__dirname, '../../schemas');
export const SCHEMA_ID_BASE = 'https://schemas.reseller-storefront.test/';
export const SCHEMA_SUFFIX = '.schema.json';
/** Where the compiled validators are cached, one module per set of schemas. */
export const VALIDATOR_CACHE_DIR = resolve(__dirname, '../../node_modules/.cache/reseller-storefront-conformance');

/** Short name of a schema: its file name without `.schema.json`, e.g. `prices.response`. */
export type SchemaName = string;

export interface SchemaVerdict {
  valid: boolean;
  /** One line per ajv error, e.g. `/0/finalPrice must be number`. */
  errors: string[];
}

type Format = FormatDefinition<string> | FormatDefinition<number>;

/** OpenAPI formats: they document the wire type, and constrain nothing beyond "type". */
const OPENAPI_FORMATS: Record<string, Format> = {
  float: { type: 'number', validate: () => true },
  double: { type: 'number', validate: () => true },
  int32: { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 },
  int64: { type: 'number', validate: (n: number) => Number.isInteger(n) },
  password: { type: 'string', validate: () => true },
};

/** Every format the schemas may name, as the compiled code refers to them: `formats[name]`. */
function allFormats(): Record<string, unknown> {
  // Required here, not imported: a process that loads cached validators never loads the rest of ajv-formats.
  const { fullFormats } = require('ajv-formats/dist/formats') as typeof import('ajv-formats/dist/formats');
  return { ...fullFormats, ...OPENAPI_FORMATS };
}

/** The one configuration of Ajv in the project. */
export function createAjv(): Ajv2020 {
  const { default: Ajv, _ } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
  const { default: addFormats } = require('ajv-formats') as typeof import('ajv-formats');
  // The schemas are checked against the 2020-12 meta-schema once, by tests/self/schemas.spec.ts, not by every process
  // that loads them. code.source keeps the generated code, so that it can be cached; formats are named by the
  // argument of the cached module (validatorModule).
  const ajv = new Ajv({
    strict: true,
    allErrors: true,
    allowUnionTypes: true,
    validateSchema: false,
    code: { source: true, formats: _`formats` },
  });
  addFormats(ajv);
  for (const [name, format] of Object.entries(OPENAPI_FORMATS)) ajv.addFormat(name, format);
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

type Validators = Record<SchemaName, ValidateFunction>;

/** The cache file of these schemas: its name changes with them, with this file, and with Ajv's versions. */
function cacheFile(sources: Map<SchemaName, object>): string {
  const hash = createHash('sha256');
  for (const pkg of ['ajv', 'ajv-formats']) hash.update(readFileSync(require.resolve(`${pkg}/package.json`)));
  hash.update(readFileSync(__filename));
  hash.update(JSON.stringify([...sources]));
  return join(VALIDATOR_CACHE_DIR, `validators-${hash.digest('hex').slice(0, 16)}.cjs`);
}

/** Ajv's standalone code of every schema, wrapped as a module whose export takes the formats. */
function validatorModule(ajv: Ajv2020, names: SchemaName[]): string {
  const { default: standaloneCode } = require('ajv/dist/standalone') as typeof import('ajv/dist/standalone');
  const code = standaloneCode(ajv, Object.fromEntries(names.map((name) => [name, schemaId(name)])));
  return `'use strict';\nmodule.exports = function (formats) {\nconst exports = {};\n${code}\nreturn exports;\n};\n`;
}

/** Writes the module whole (by a rename) and removes those of other schemas; a cache it cannot write is skipped. */
function writeCache(file: string, module: string): void {
  try {
    mkdirSync(VALIDATOR_CACHE_DIR, { recursive: true });
    const partial = `${file}.${process.pid}.tmp`;
    writeFileSync(partial, module);
    renameSync(partial, file);
    const name = file.slice(VALIDATOR_CACHE_DIR.length + 1);
    for (const other of readdirSync(VALIDATOR_CACHE_DIR))
      if (other !== name && !other.endsWith('.tmp')) rmSync(join(VALIDATOR_CACHE_DIR, other), { force: true });
  } catch {
    // Read-only node_modules: every process compiles for itself, as it would without the cache.
  }
}

function requireValidators(file: string): Validators {
  return (require(file) as (formats: Record<string, unknown>) => Validators)(allFormats());
}

/** The validators of every schema: from the cache, else compiled (and cached for the next process). */
function loadValidators(sources: Map<SchemaName, object>): Validators {
  const file = cacheFile(sources);
  try {
    return requireValidators(file);
  } catch {
    // Not cached yet (or unreadable): compiled below.
  }
  const ajv = createAjv();
  for (const schema of sources.values()) ajv.addSchema(schema);
  const names = [...sources.keys()];
  const validators: Validators = {};
  for (const name of names) {
    const validate = ajv.getSchema(schemaId(name));
    if (!validate) throw new Error(`schemas/${name}${SCHEMA_SUFFIX}: its $id must be ${schemaId(name)}`);
    validators[name] = validate;
  }
  writeCache(file, validatorModule(ajv, names));
  return validators;
}

class SchemaRegistry {
  readonly sources = loadSchemaFiles();
  private validators: Validators | undefined;
  private fresh: Ajv2020 | undefined;

  /** An Ajv with every schema added, for validating ad hoc schemas; the registry's own validators do not use it. */
  get ajv(): Ajv2020 {
    if (!this.fresh) {
      this.fresh = createAjv();
      for (const schema of this.sources.values()) this.fresh.addSchema(schema);
    }
    return this.fresh;
  }

  /** The compiled validator of a schema. */
  validator(name: SchemaName): ValidateFunction {
    this.validators ??= loadValidators(this.sources);
    const validate = this.validators[name];
    if (!validate) throw new Error(`Unknown schema "${name}". Known: ${this.names.join(', ')}`);
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

/** The validators the cache holds for the schemas, if it holds them (tests/self/schemas.spec.ts compares them). */
export function cachedValidators(): Validators | undefined {
  try {
    return requireValidators(cacheFile(schemas().sources));
  } catch {
    return undefined;
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

/** Whether a request schema is an array of items (cart items, §4.5), whose fields are those of an item. */
export function isArraySchema(name: SchemaName): boolean {
  return resolveRef(schemas().sources.get(name) as ObjectSchema).type === 'array';
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

/** Keywords that only say what a field is, not which values of its type it takes. */
const ANNOTATIONS = new Set(['type', 'description', 'title', 'examples', '$comment']);
/** Formats that only say how a number is stored, and take every number (OPENAPI_FORMATS): float, double. */
const ANY_NUMBER = new Set<unknown>(['float', 'double']);

/**
 * Fields of a request schema that take only some values of their type (a format, a bound, a pattern…), or several
 * types: a generator of valid values must leave them alone, or know them.
 */
export function constrainedFields(name: SchemaName): Set<string> {
  let schema = resolveRef(schemas().sources.get(name) as ObjectSchema);
  if (schema.type === 'array' && schema.items) schema = resolveRef(schema.items);
  const constrained = Object.entries(schema.properties ?? {}).filter(([, sub]) => {
    const resolved = resolveRef(sub);
    // OpenAPI's float and double take every number (OPENAPI_FORMATS): unit_price of §2.5 ranges as a number does.
    const format = (resolved as { format?: unknown }).format;
    const constraining = (k: string) => !ANNOTATIONS.has(k) && !(k === 'format' && ANY_NUMBER.has(format));
    return typeof resolved.type !== 'string' || Object.keys(resolved).some(constraining);
  });
  return new Set(constrained.map(([field]) => field));
}
